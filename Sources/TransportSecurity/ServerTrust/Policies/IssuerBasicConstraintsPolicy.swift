import SwiftASN1
import X509

/// Every issuer of the path, anchor included, is a CA certificate (RFC 5280 §4.2.1.9): its
/// basicConstraints extension is present, critical and asserts cA, and its pathLenConstraint,
/// if any, is at least the number of non-self-issued intermediates below it. A version 1
/// certificate has no extensions, so it is never a CA.
///
/// This replaces swift-certificates' basic-constraints processing, which lets a version 1
/// certificate issue and does not require the extension to be critical. A path of one (a leaf
/// that is itself the anchor) is trusted by identity and not checked.
public struct IssuerBasicConstraintsPolicy: FailureReportingPolicy {
    /// basicConstraints is processed here.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.basicConstraints] }

    /// Creates the policy.
    public init() {}

    /// The first issuer, from the leaf up, that is not a CA or whose path length constraint the
    /// intermediates below it exceed (``TrustFailure/Code/constraintViolation``), whose
    /// basicConstraints is not critical (``TrustFailure/Code/misissued``) or does not decode
    /// (``TrustFailure/Code/malformedCertificate``); nothing for a path of one.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        guard path.count > 1 else { return [] }
        var intermediatesBelow = 0
        for (index, issuer) in path.enumerated().dropFirst() {
            let constraints: BasicConstraints?
            do {
                constraints = try issuer.basicConstraints()
            } catch {
                return [TrustFailure(.malformedCertificate, certificate: issuer.subjectText, detail: "has a malformed basic constraints extension: \(error)")]
            }
            guard case .isCertificateAuthority(let maximumPathLength) = constraints else {
                let why = issuer.certificate.version == .v1 ? "is a version 1 certificate, which cannot be a CA" : "is not a CA certificate (its basic constraints do not assert cA)"
                return [TrustFailure(.constraintViolation, certificate: issuer.subjectText, detail: "issues a certificate but \(why)")]
            }
            if !issuer.hasCriticalExtension(.X509ExtensionID.basicConstraints) {
                return [TrustFailure(.misissued, certificate: issuer.subjectText, detail: "is a CA certificate whose basic constraints extension is not critical (RFC 5280 §4.2.1.9)")]
            }
            if let maximumPathLength, maximumPathLength < intermediatesBelow {
                return [
                    TrustFailure(
                        .constraintViolation,
                        certificate: issuer.subjectText,
                        detail: "allows \(maximumPathLength) intermediate CAs below it (pathLenConstraint) but the path has \(intermediatesBelow)"
                    )
                ]
            }
            if index < path.count - 1, !issuer.isSelfIssued { intermediatesBelow += 1 }
        }
        return []
    }
}
