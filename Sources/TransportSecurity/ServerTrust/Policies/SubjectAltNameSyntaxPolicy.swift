import SwiftASN1
import X509

/// Every subjectAltName entry of the issued certificates (all but the anchor) is well formed
/// (RFC 5280 §4.2.1.6):
///
/// - a DNS name is in the preferred name syntax of RFC 1034 and RFC 1123: labels of letters,
///   digits and inner hyphens, 1 to 63 characters, at most 253 in all, no empty label (so no
///   leading or trailing period, no underscore); the left-most label may be a lone `*`;
/// - an IP address has 4 or 16 bytes (a CIDR range is not an address);
/// - a mailbox has exactly one `@` with text on both sides.
///
/// A malformed entry refuses the path: name constraints and host matching cannot judge it.
public struct SubjectAltNameSyntaxPolicy: FailureReportingPolicy {
    /// The subjectAltName extension's contents are checked here.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.subjectAlternativeName] }

    /// Creates the policy.
    public init() {}

    /// One ``TrustFailure/Code/malformedCertificate`` per issued certificate with a malformed
    /// subjectAltName entry (or an extension that does not decode); nothing for a path of one.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        guard path.count > 1 else { return [] }
        return path.dropLast().compactMap { certificate in
            let names: SubjectAlternativeNames?
            do {
                names = try certificate.subjectAlternativeNames()
            } catch {
                return TrustFailure(.malformedCertificate, certificate: certificate.subjectText, detail: "has a malformed subjectAltName extension: \(error)")
            }
            guard let malformed = names?.first(where: { !Self.isWellFormed($0) }) else { return nil }
            return TrustFailure(.malformedCertificate, certificate: certificate.subjectText, detail: "has a malformed subjectAltName entry \(malformed.readable)")
        }
    }

    /// Whether one subjectAltName entry is well formed; forms without rules here (URIs, directory
    /// names, otherName) always are.
    public static func isWellFormed(_ name: GeneralName) -> Bool {
        switch name {
        case .dnsName(let dnsName): return isPreferredNameSyntax(dnsName)
        case .ipAddress(let bytes): return bytes.bytes.count == 4 || bytes.bytes.count == 16
        case .rfc822Name(let mailbox):
            let parts = mailbox.split(separator: "@", omittingEmptySubsequences: false)
            return parts.count == 2 && parts.allSatisfy { !$0.isEmpty }
        default: return true
        }
    }

    /// RFC 1034 §3.5 as RFC 1123 §2.1 relaxes it, with a lone `*` allowed as the left-most label.
    static func isPreferredNameSyntax(_ name: String) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        let dot = UInt8(ascii: "."), hyphen = UInt8(ascii: "-")
        var remaining = bytes[...]
        if remaining.starts(with: "*.".utf8), remaining.count > 2 { remaining = remaining.dropFirst(2) }
        var labelLength = 0
        var previous: UInt8 = dot
        for byte in remaining {
            if byte == dot {
                guard labelLength > 0, previous != hyphen else { return false }
                labelLength = 0
            } else {
                let isLetterOrDigit =
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                guard isLetterOrDigit || (byte == hyphen && labelLength > 0) else { return false }
                labelLength += 1
                guard labelLength <= 63 else { return false }
            }
            previous = byte
        }
        return labelLength > 0 && previous != hyphen
    }
}
