import SwiftASN1
import X509

/// Every certificate that issues another in the path must, when it has a key usage extension,
/// assert `keyCertSign` (RFC 5280 §4.2.1.3). swift-certificates' `RFC5280Policy` declares the
/// extension handled but deliberately does not police it; this policy does.
///
/// A path of one (a leaf that is itself the anchor) issues nothing and is not checked.
public struct IssuerKeyUsagePolicy: FailureReportingPolicy {
    /// keyUsage is declared handled by swift-certificates' RFC 5280 policy.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.keyUsage] }

    /// Creates the policy.
    public init() {}

    /// One failure per issuer whose key usage omits keyCertSign
    /// (``TrustFailure/Code/constraintViolation``) or does not decode
    /// (``TrustFailure/Code/malformedCertificate``).
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        path.dropFirst().compactMap { issuer in
            let keyUsage: KeyUsage?
            do {
                keyUsage = try issuer.keyUsage()
            } catch {
                return TrustFailure(.malformedCertificate, certificate: issuer.subjectText, detail: "has a malformed key usage extension: \(error)")
            }
            guard let keyUsage, !keyUsage.keyCertSign else { return nil }
            return TrustFailure(
                .constraintViolation,
                certificate: issuer.subjectText,
                detail: "issues certificates but its key usage (\(keyUsage)) lacks keyCertSign"
            )
        }
    }
}
