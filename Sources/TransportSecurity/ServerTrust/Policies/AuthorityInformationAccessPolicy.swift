import SwiftASN1
import X509

/// An authority information access extension, wherever it appears in the path, must decode and
/// hold at least one access description (RFC 5280 §4.2.2.1).
public struct AuthorityInformationAccessPolicy: FailureReportingPolicy {
    /// No critical extensions are processed here: the extension must not be critical.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [] }

    /// Creates the policy.
    public init() {}

    /// One failure per certificate whose authority information access extension does not decode
    /// (``TrustFailure/Code/malformedCertificate``) or holds no access description
    /// (``TrustFailure/Code/misissued``).
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        path.compactMap { certificate in
            do {
                guard let access = try certificate.certificate.extensions.authorityInformationAccess, access.isEmpty else { return nil }
                return TrustFailure(.misissued, certificate: certificate.subjectText, detail: "has an authority information access extension with no access description")
            } catch {
                return TrustFailure(.malformedCertificate, certificate: certificate.subjectText, detail: "has a malformed authority information access extension: \(error)")
            }
        }
    }
}
