import TransportSecurity

/// Judges a limbo case's trust exactly as the case built it (its own validation policy, anchors,
/// time and depth limit), so that other evaluators, revocation checking first, can be stacked
/// on top of the engine's answer.
struct LimboCaseEvaluator: ServerTrustEvaluating {
    func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        let evaluation = await trust.evaluate()
        let reason = evaluation.failures.first.map { "\($0.code.rawValue): \($0.description)" } ?? evaluation.summary
        return TrustDecision(
            isTrusted: evaluation.isTrusted,
            decider: .evaluator("engine"),
            reason: reason,
            checks: [TrustCheck(name: "trust under \(trust.policy)", evaluation: evaluation)]
        )
    }
}
