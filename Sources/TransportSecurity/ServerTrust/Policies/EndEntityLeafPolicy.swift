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
    /// ``TrustFailure/Code/misissued`` when it asserts keyCertSign without it; nothing for a path
    /// of one.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        guard path.count > 1 else { return [] }
        let leaf = path.leaf
        guard case .some(.isCertificateAuthority) = try? leaf.basicConstraints() else {
            guard let keyUsage = try? leaf.keyUsage(), keyUsage.keyCertSign else { return [] }
            return [
                TrustFailure(
                    .misissued,
                    certificate: leaf.subjectText,
                    detail: "is not a CA certificate but its key usage asserts keyCertSign"
                )
            ]
        }
        return [
            TrustFailure(
                .leafIsCertificateAuthority,
                certificate: leaf.subjectText,
                detail: "is a CA certificate (basicConstraints cA = true) and cannot identify a server"
            )
        ]
    }
}
