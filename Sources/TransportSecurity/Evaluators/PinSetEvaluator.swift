import Foundation

/// Adds one domain's pin set to another evaluator: the other evaluator decides first and its
/// rejection stands; a server it trusts must then carry a pinned key somewhere in the validated
/// path (in its leaf, when the other evaluator trusted a chain that does not validate). This is
/// how the sets of a ``PinSetRegistry`` (signed pin updates) are enforced.
public struct PinSetEvaluator: ServerTrustEvaluating {
    /// The ``TrustDecision/decider`` of a decision where the pin set rejects a server.
    public static let decider = TrustDecision.Decider.pinSet

    /// The evaluator that decides first.
    public let base: AnyServerTrustEvaluator
    /// The pin set.
    public let pinSet: DomainPinSet
    /// Where the set comes from, for messages (`built-in`, `signed document v7`).
    public let origin: String

    /// Creates the evaluator.
    public init(_ base: some ServerTrustEvaluating, pinSet: DomainPinSet, origin: String) {
        self.base = AnyServerTrustEvaluator(base)
        self.pinSet = pinSet
        self.origin = origin
    }

    /// The base decision, then the pin set.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        let decision = await base.evaluate(trust, forHost: host)
        guard decision.isTrusted else { return decision }
        var checks = decision.checks
        let name = "pin set \(pinSet.key) (\(origin))"
        let pinnable = await decision.pinnablePath(of: trust)
        if let search = pinnable.search { checks.append(search) }
        switch pinSet.verdict(on: pinnable, host: host, at: trust.evaluationTime ?? Date()) {
        case .satisfied:
            checks.append(TrustCheck(name: name, passed: true, detail: "a pinned key is in the path"))
            return decision.stillTrusted(checks: checks, reusableUntil: pinnable.validUntil)
        case .rejected(let reason, let mismatch):
            checks.append(TrustCheck(name: name, passed: false, detail: reason))
            return TrustDecision(isTrusted: false, decider: Self.decider, reason: "\(reason) (\(origin))", checks: checks, pinMismatch: mismatch)
        case .reportOnly(let mismatch):
            checks.append(TrustCheck(name: name + " (report-only)", passed: false, detail: "no pinned key in the path; not enforced"))
            return decision.stillTrusted(checks: checks, pinMismatch: mismatch, reusableUntil: pinnable.validUntil)
        }
    }
}
