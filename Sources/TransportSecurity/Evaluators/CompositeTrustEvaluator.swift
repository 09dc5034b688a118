/// Every evaluator must trust the server; the first that does not decides.
public struct CompositeTrustEvaluator: ServerTrustEvaluating {
    /// The evaluators, in the order they run.
    public let evaluators: [AnyServerTrustEvaluator]

    /// Creates the composite.
    public init(_ evaluators: [any ServerTrustEvaluating]) {
        self.evaluators = evaluators.map(AnyServerTrustEvaluator.init)
    }

    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        guard !evaluators.isEmpty else {
            return TrustDecision(isTrusted: false, decidedBy: evaluatorName, reason: "the composite holds no evaluator")
        }
        var checks: [TrustCheck] = []
        for evaluator in evaluators {
            let decision = await evaluator.evaluate(trust, forHost: host)
            checks += decision.checks
            guard decision.isTrusted else {
                return TrustDecision(
                    isTrusted: false,
                    decidedBy: "\(evaluatorName) → \(decision.decidedBy)",
                    rule: decision.rule,
                    reason: decision.reason,
                    checks: checks,
                    pinMismatch: decision.pinMismatch
                )
            }
        }
        return TrustDecision(isTrusted: true, decidedBy: evaluatorName, reason: "all \(evaluators.count) evaluators trust the server", checks: checks)
    }
}
