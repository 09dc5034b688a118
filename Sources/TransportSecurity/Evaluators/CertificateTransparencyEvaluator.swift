import Foundation

/// Adds certificate transparency to another evaluator: the other evaluator decides first and its
/// rejection stands; a server it trusts must then satisfy a ``CertificateTransparencyPolicy`` on
/// the validated path.
public struct CertificateTransparencyEvaluator: ServerTrustEvaluating {
    /// The ``TrustDecision/decider`` of a decision where certificate transparency rejects a server.
    public static let decider = TrustDecision.Decider.certificateTransparency

    /// The evaluator that decides first.
    public let base: AnyServerTrustEvaluator
    /// The policy.
    public let policy: CertificateTransparencyPolicy

    /// Creates the evaluator.
    public init(_ base: some ServerTrustEvaluating, policy: CertificateTransparencyPolicy) {
        self.base = AnyServerTrustEvaluator(base)
        self.policy = policy
    }

    /// The base decision, then the policy.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        let decision = await base.evaluate(trust, forHost: host)
        guard decision.isTrusted else { return decision }
        let verdict = policy.verdict(on: decision.checkedPath(of: trust), at: trust.evaluationTime ?? Date())
        var checks = decision.checks
        checks.append(TrustCheck(name: "certificate transparency", passed: verdict.isCompliant, detail: ([verdict.reason] + verdict.timestamps).joined(separator: "; ")))
        guard verdict.isCompliant else {
            return TrustDecision(isTrusted: false, decider: Self.decider, reason: "certificate transparency: \(verdict.reason)", checks: checks)
        }
        return decision.stillTrusted(checks: checks)
    }
}
