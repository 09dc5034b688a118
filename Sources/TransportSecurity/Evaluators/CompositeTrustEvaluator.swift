import Foundation

/// Every evaluator must trust the server; the first that does not decides.
public struct CompositeTrustEvaluator: ServerTrustEvaluating {
    /// The evaluators, in the order they run.
    public let evaluators: [AnyServerTrustEvaluator]

    /// Creates the composite.
    public init(_ evaluators: [any ServerTrustEvaluating]) {
        self.evaluators = evaluators.map { AnyServerTrustEvaluator($0) }
    }

    /// Asks each evaluator in order and returns the first rejection, relabeled with this
    /// composite's name and every check made so far; trusts when all trust (an empty composite
    /// trusts nothing). The decision may be reused no longer than its shortest-lived part's.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        guard !evaluators.isEmpty else {
            return TrustDecision(isTrusted: false, decider: .evaluator(evaluatorName), reason: "the composite holds no evaluator")
        }
        var checks: [TrustCheck] = []
        var reusableUntil: Date?
        var isProvisional = false
        for evaluator in evaluators {
            let decision = await evaluator.evaluate(trust, forHost: host)
            checks += decision.checks
            guard decision.isTrusted else {
                return decision.relabeled(decider: .composite(evaluatorName, decision.decider), checks: checks)
            }
            reusableUntil = TrustDecision.earlier(reusableUntil, decision.reusableUntil)
            isProvisional = isProvisional || decision.isProvisional
        }
        return TrustDecision(
            isTrusted: true, decider: .evaluator(evaluatorName), reason: "all \(evaluators.count) evaluators trust the server", checks: checks,
            reusableUntil: reusableUntil, isProvisional: isProvisional
        )
    }
}
