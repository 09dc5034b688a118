/// Decides whether a server's trust is acceptable for a host: the one protocol every evaluator,
/// and ``SecurityPolicy`` itself, conforms to (Alamofire's `ServerTrustEvaluating`).
///
/// An evaluator is `Hashable` so that its decisions can be cached per evaluator
/// (``DecisionCache``): two equal evaluators must decide the same way.
public protocol ServerTrustEvaluating: Sendable, Hashable {
    /// Decides on `trust` for `host`.
    func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision
}

extension SecurityPolicy: ServerTrustEvaluating {
    /// ``evaluate(_:forDomain:)`` with the host as the domain.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        await evaluate(trust, forDomain: host)
    }
}

extension ServerTrustEvaluating {
    /// Evaluates `trust` under `validation` against its own anchors, recording the check.
    func validate(
        _ trust: ServerTrust,
        under validation: TrustValidationPolicy,
        named name: String,
        into checks: inout [TrustCheck]
    ) async -> TrustEvaluation {
        let evaluation = await trust.withPolicy(validation).evaluate()
        checks.append(TrustCheck(name: name, evaluation: evaluation))
        return evaluation
    }

    var evaluatorName: String { String(describing: Self.self) }
}
