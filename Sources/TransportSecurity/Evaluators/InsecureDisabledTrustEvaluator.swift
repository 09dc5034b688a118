/// Accepts every server without looking at its certificate.
///
/// **Never use this outside tests.** It turns TLS into encryption with an unknown party: anyone
/// on the path can read and change the traffic. Its decisions say so.
public struct InsecureDisabledTrustEvaluator: ServerTrustEvaluating {
    /// Creates the evaluator. Think twice.
    public init() {}

    /// Trusts every server without looking at its certificates; the decision's reason says so.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        TrustDecision(
            isTrusted: true,
            decider: .evaluator(evaluatorName),
            reason: "INSECURE: trust evaluation is disabled for \(host); the certificate was not checked"
        )
    }
}
