import SwiftASN1
import X509

/// Key identifiers as RFC 5280 §4.2.1.1–2 and the CA/Browser Forum require them, the links
/// path building follows:
///
/// - every certificate below the anchor has an authority key identifier (the anchor need not:
///   it is trusted as it is, even when it is a cross-signed CA);
/// - every CA certificate (each issuer, anchor included) has a subject key identifier;
/// - a CA certificate's authority key identifier has the keyIdentifier field and neither
///   authorityCertIssuer nor authorityCertSerialNumber;
/// - a self-issued anchor's authority key identifier, when present, equals its subject key
///   identifier.
///
/// A path of one (a leaf that is itself the anchor) is trusted by identity and not checked.
public struct KeyIdentifierPolicy: FailureReportingPolicy {
    /// No critical extensions are processed here: a critical key identifier is refused.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [] }

    /// Creates the policy.
    public init() {}

    /// Every missing, malformed or inconsistent key identifier of the path, each naming its
    /// certificate; nothing for a path of one.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        guard path.count > 1 else { return [] }
        var failures: [TrustFailure] = []
        for (index, certificate) in path.enumerated() {
            let isAnchor = index == path.count - 1
            let authority: AuthorityKeyIdentifier?
            let subject: SubjectKeyIdentifier?
            do {
                authority = try certificate.authorityKeyIdentifier()
                subject = try certificate.subjectKeyIdentifier()
            } catch {
                failures.append(TrustFailure(.malformedCertificate, certificate: certificate.subjectText, detail: "has a malformed key identifier extension: \(error)"))
                continue
            }
            func misissued(_ detail: String) { failures.append(TrustFailure(.misissued, certificate: certificate.subjectText, detail: detail)) }
            if !isAnchor && authority == nil {
                misissued("has no authority key identifier, which RFC 5280 §4.2.1.1 requires of every issued certificate")
            }
            guard index > 0 else { continue }
            if subject == nil {
                misissued("is a CA certificate without a subject key identifier, which RFC 5280 §4.2.1.2 requires")
            }
            guard let authority else { continue }
            if authority.keyIdentifier == nil {
                misissued("is a CA certificate whose authority key identifier lacks the keyIdentifier field")
            }
            if authority.authorityCertIssuer != nil || authority.authorityCertSerialNumber != nil {
                misissued("is a CA certificate whose authority key identifier names an issuer or serial number, which CA certificates must not (CA/Browser Forum BR 7.1.2)")
            }
            if isAnchor, certificate.isSelfIssued, let keyIdentifier = authority.keyIdentifier,
                let subject, keyIdentifier != subject.keyIdentifier
            {
                misissued("is self-issued but its authority key identifier differs from its subject key identifier")
            }
        }
        return failures
    }
}
