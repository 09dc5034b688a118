import SwiftASN1
import X509

/// Extensions exist only in version 3 certificates (RFC 5280 §4.1.2.1): a version 1 or 2
/// certificate of the path that carries any is malformed.
public struct CertificateVersionPolicy: FailureReportingPolicy {
    /// No critical extensions are processed here.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [] }

    /// Creates the policy.
    public init() {}

    /// One ``TrustFailure/Code/malformedCertificate`` per version 1 or 2 certificate that carries
    /// extensions.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        path.compactMap { entry in
            let version = entry.certificate.version
            guard version != .v3, !entry.certificate.extensions.isEmpty else { return nil }
            return TrustFailure(.malformedCertificate, certificate: entry.subjectText, detail: "is a \(version) certificate with extensions, which only version 3 certificates may carry")
        }
    }
}
