import SwiftASN1
import X509

/// A `VerifierPolicy` that reports typed ``TrustFailure``s instead of a bare string.
///
/// Every policy of this library conforms, so it can be used with swift-certificates' `Verifier`
/// directly, and the server-trust engine can say exactly which rule failed and why. The engine
/// hands all its policies one ``CertificatePath`` per candidate, so that they share each
/// certificate's decoded extensions.
public protocol FailureReportingPolicy: VerifierPolicy, Sendable {
    /// Every way `path` fails this policy; empty when it meets it.
    func failures(in path: CertificatePath) -> [TrustFailure]
}

extension FailureReportingPolicy {
    /// Every way `chain` fails this policy; empty when it meets it.
    public func failures(in chain: UnverifiedCertificateChain) -> [TrustFailure] {
        failures(in: CertificatePath(chain))
    }

    /// Meets the policy exactly when it reports no failure for the chain.
    public func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        let failures = failures(in: chain)
        guard failures.isEmpty else {
            let reason = failures.map(\.description).joined(separator: "; ")
            return .failsToMeetPolicy(reason: reason)
        }
        return .meetsPolicy
    }
}

extension Certificate {
    /// The subject as text, for failure messages (``TrustFailure`` escapes its control
    /// characters).
    var subjectText: String { String(describing: subject) }
}
