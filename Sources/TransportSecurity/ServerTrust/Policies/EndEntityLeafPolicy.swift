import SwiftASN1
import X509

/// A server's leaf must be an end-entity certificate: not a CA certificate, and without the
/// keyCertSign key usage, which only a CA may assert (RFC 5280 §4.2.1.9).
///
/// A leaf that is itself the anchor (a path of one: a pinned self-signed server certificate)
/// is exempt, since it is trusted by identity rather than issued.
public struct EndEntityLeafPolicy: FailureReportingPolicy {
    /// basicConstraints is processed by swift-certificates' RFC 5280 policy.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [] }

    /// Creates the policy.
    public init() {}

    /// A ``TrustFailure/Code/leafIsCertificateAuthority`` when the leaf asserts cA, a
    /// ``TrustFailure/Code/misissued`` when it asserts keyCertSign without it, a
    /// ``TrustFailure/Code/malformedCertificate`` when either extension does not decode (whether
    /// the leaf is a CA cannot then be told); nothing for a path of one.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        guard path.count > 1 else { return [] }
        let leaf = path.leaf
        let constraints: BasicConstraints?
        let keyUsage: KeyUsage?
        do { constraints = try leaf.basicConstraints() } catch {
            return [TrustFailure(.malformedCertificate, certificate: leaf.subjectText, detail: "has a malformed basic constraints extension: \(error)")]
        }
        do { keyUsage = try leaf.keyUsage() } catch {
            return [TrustFailure(.malformedCertificate, certificate: leaf.subjectText, detail: "has a malformed key usage extension: \(error)")]
        }
        if case .isCertificateAuthority? = constraints {
            return [
                TrustFailure(
                    .leafIsCertificateAuthority,
                    certificate: leaf.subjectText,
                    detail: "is a CA certificate (basicConstraints cA = true) and cannot identify a server"
                )
            ]
        }
        guard let keyUsage, keyUsage.keyCertSign else { return [] }
        return [
            TrustFailure(
                .misissued,
                certificate: leaf.subjectText,
                detail: "is not a CA certificate but its key usage asserts keyCertSign"
            )
        ]
    }
}
