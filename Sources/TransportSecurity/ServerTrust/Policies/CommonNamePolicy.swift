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
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [] }

    /// Creates the policy.
    public init() {}

    /// The ways the leaf's common names break the rules above, each a
    /// ``TrustFailure/Code/misissued``; nothing for a path of one.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        guard path.count > 1 else { return [] }
        let leaf = path.leaf
        var commonName: String?
        var count = 0
        for name in leaf.certificate.subject {
            for attribute in name where attribute.type == .RDNAttributeType.commonName {
                count += 1
                if commonName == nil { commonName = String(attribute.value) ?? String(describing: attribute.value) }
            }
        }
        guard let commonName else { return [] }
        guard count == 1 else {
            return [TrustFailure(.misissued, certificate: leaf.subjectText, detail: "has \(count) common names; a server certificate has at most one")]
        }
        guard let problem = Self.problem(with: commonName, leaf: leaf) else { return [] }
        return [TrustFailure(.misissued, certificate: leaf.subjectText, detail: "its common name \"\(commonName)\" \(problem) (CA/Browser Forum BR 7.1.4.3)")]
    }

    static func problem(with commonName: String, leaf: PathCertificate) -> String? {
        guard !commonName.isEmpty, !containsWhitespace(commonName) else { return nil }
        if let canonical = canonicalAddress(commonName) {
            return canonical == commonName ? nil : "is an IP address not in canonical form (\(canonical))"
        }
        guard commonName.utf8.contains(UInt8(ascii: ".")) else { return nil }
        guard commonName.isASCII else {
            return "is a host name not in ASCII; an internationalized name must be written as its xn-- A-label"
        }
        let dnsNames = (try? leaf.subjectAlternativeNames()).flatMap { $0 }.map(Array.init)?.compactMap { name -> String? in
            if case .dnsName(let dnsName) = name { return dnsName }
            return nil
        } ?? []
        if let listed = dnsNames.first(where: { $0.equalsIgnoringASCIICase(commonName) }), listed != commonName {
            return "is not an exact copy of the subjectAltName \(listed) it names"
        }
        return nil
    }

    /// Whether `text` has a white-space character (checked byte by byte for ASCII text).
    private static func containsWhitespace(_ text: String) -> Bool {
        guard text.isASCII else { return text.contains(where: \.isWhitespace) }
        return text.utf8.contains { $0 == UInt8(ascii: " ") || (0x09...0x0D).contains($0) }
    }

    /// The canonical text of `text` read as an address the lenient way (for IPv4 the forms
    /// `inet_aton` takes: hexadecimal, octal and short; `inet_pton` for IPv6), or `nil` when it is
    /// no address.
    static func canonicalAddress(_ text: String) -> String? {
        if let address = ServerHost.resolverIPv4Address(text) { return address }
        return text.utf8.contains(UInt8(ascii: ":")) ? ServerHost.canonicalIPAddress(text) : nil
    }
}
