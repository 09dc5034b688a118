/// System trust and, unless turned off, the hostname: what every HTTPS client does by default.
public struct DefaultTrustEvaluator: ServerTrustEvaluating {
    /// Whether the certificate must name the host.
    public let validatesHost: Bool

    /// Creates the evaluator.
    public init(validatesHost: Bool = true) { self.validatesHost = validatesHost }

    /// Trusts `trust` when its chain validates to its anchors under ``TrustValidationPolicy/ssl(_:)``
    /// for `host` (or for no host when ``validatesHost`` is false).
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        var checks: [TrustCheck] = []
        let validation: TrustValidationPolicy = validatesHost ? .ssl(host) : .ssl(host: nil)
        let evaluation = await validate(trust, under: validation, named: "trust under \(validation)", into: &checks)
        return TrustDecision(
            isTrusted: evaluation.isTrusted,
            decider: .evaluator(evaluatorName),
            reason: evaluation.summary,
            checks: checks
        )
    }
}
