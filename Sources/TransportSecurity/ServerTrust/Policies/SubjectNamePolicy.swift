import SwiftASN1
import X509

/// The subject and the subjectAltName's criticality, per RFC 5280 §4.1.2.6 and §4.2.1.6 and the
/// CA/Browser Forum:
///
/// - a CA certificate (each issuer of the path) has a non-empty subject;
/// - a leaf with an empty subject carries its identity in a critical subjectAltName;
/// - a leaf with a subject has a non-critical subjectAltName.
///
/// A path of one (a leaf that is itself the anchor) is trusted by identity and not checked.
public struct SubjectNamePolicy: FailureReportingPolicy {
    /// The subjectAltName's criticality is checked here; its contents by the host policy.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [] }

    /// Creates the policy.
    public init() {}

    /// One ``TrustFailure/Code/misissued`` per CA with an empty subject and for a leaf whose
    /// subjectAltName's criticality does not fit its subject; nothing for a path of one.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        guard path.count > 1 else { return [] }
        var failures: [TrustFailure] = path.dropFirst().filter { $0.certificate.subject.isEmpty }.map { issuer in
            TrustFailure(.misissued, certificate: "a CA certificate issued by \(issuer.certificate.issuer)", detail: "has an empty subject; a CA's subject must name it (RFC 5280 §4.1.2.6)")
        }
        let leaf = path.leaf
        let subjectAltName = leaf.certificate.extensions[oid: .X509ExtensionID.subjectAlternativeName]
        if leaf.certificate.subject.isEmpty, subjectAltName?.critical != true {
            failures.append(
                TrustFailure(
                    .misissued,
                    certificate: "a leaf issued by \(leaf.certificate.issuer)",
                    detail: "has an empty subject, so its subjectAltName must be present and critical (RFC 5280 §4.2.1.6)"
                )
            )
        } else if !leaf.certificate.subject.isEmpty, subjectAltName?.critical == true {
            failures.append(
                TrustFailure(
                    .misissued,
                    certificate: leaf.subjectText,
                    detail: "has a subject, so its subjectAltName must not be critical (CA/Browser Forum BR 7.1.2.7.12)"
                )
            )
        }
        return failures
    }
}
