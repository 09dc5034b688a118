import Foundation
import SwiftASN1
import X509

/// A server leaf's common name, when it reads as a host name or an address, must be written so
/// that no reader can take it for something else. The common name is never used to match the
/// host; this refuses leaves whose subject is malformed in the ways CA/Browser Forum BR 7.1.4.3
/// forbids and parser differentials exploit:
///
/// - at most one common name;
/// - an address is in canonical text: dotted decimal without leading zeros or hexadecimal parts
///   (`0xC0A80101`, `192.168.001.001` are refused), IPv6 in RFC 5952 form (lowercase,
///   compressed);
/// - a host name is in ASCII (an internationalized name as its `xn--` A-label, as subjectAltName
///   entries are);
/// - a host name that a DNS subjectAltName holds, differing only in letter case, is an exact
///   copy of it.
///
/// A descriptive common name (anything with white space, `Payments API`) is left alone, and so
/// is a well-formed host name the subjectAltNames do not hold: BetterTLS requires such leaves to
/// validate, since only the subjectAltNames identify a server.
public struct CommonNamePolicy: FailureReportingPolicy {
    /// No critical extensions are processed here.
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// Creates the policy.
    public init() {}

    public func failures(in chain: UnverifiedCertificateChain) -> [TrustFailure] {
        guard chain.count > 1 else { return [] }
        let leaf = chain.leaf
        let commonNames = leaf.subject.flatMap { $0 }.filter { $0.type == .RDNAttributeType.commonName }.map { String(describing: $0.value) }
        guard let commonName = commonNames.first else { return [] }
        guard commonNames.count == 1 else {
            return [TrustFailure(.misissued, certificate: leaf.subjectText, detail: "has \(commonNames.count) common names; a server certificate has at most one")]
        }
        guard let problem = Self.problem(with: commonName, leaf: leaf) else { return [] }
        return [TrustFailure(.misissued, certificate: leaf.subjectText, detail: "its common name \"\(commonName)\" \(problem) (CA/Browser Forum BR 7.1.4.3)")]
    }

    static func problem(with commonName: String, leaf: Certificate) -> String? {
        guard !commonName.isEmpty, !commonName.contains(where: \.isWhitespace) else { return nil }
        if let canonical = canonicalAddress(commonName) {
            return canonical == commonName ? nil : "is an IP address not in canonical form (\(canonical))"
        }
        guard commonName.contains(".") else { return nil }
        guard commonName.utf8.allSatisfy({ $0 < 0x80 }) else {
            return "is a host name not in ASCII; an internationalized name must be written as its xn-- A-label"
        }
        let dnsNames = (try? leaf.extensions.subjectAlternativeNames).flatMap { $0 }.map(Array.init)?.compactMap { name -> String? in
            if case .dnsName(let dnsName) = name { return dnsName }
            return nil
        } ?? []
        if let listed = dnsNames.first(where: { $0.lowercased() == commonName.lowercased() }), listed != commonName {
            return "is not an exact copy of the subjectAltName \(listed) it names"
        }
        return nil
    }

    /// The canonical text of `text` read as an address the lenient way (`inet_aton` for IPv4,
    /// which takes hexadecimal, octal and short forms; `inet_pton` for IPv6), or `nil` when it is
    /// no address.
    static func canonicalAddress(_ text: String) -> String? {
        var v4 = in_addr()
        if text.first?.isHexDigit == true, inet_aton(text, &v4) != 0 {
            return ServerHost.addressText(withUnsafeBytes(of: &v4, Array.init))
        }
        var v6 = in6_addr()
        if text.contains(":"), inet_pton(AF_INET6, text, &v6) == 1 {
            return ServerHost.addressText(withUnsafeBytes(of: &v6, Array.init))
        }
        return nil
    }
}
