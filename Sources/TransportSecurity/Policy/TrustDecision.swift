import Foundation

/// The answer of a ``SecurityPolicy`` or an evaluator: trusted or not, which rule decided, what
/// was checked, and on a pin mismatch the pins seen and expected.
public struct TrustDecision: Sendable, Hashable, CustomStringConvertible {
    /// Whether the connection may proceed.
    public let isTrusted: Bool
    /// What decided, as data: a ``SecurityPolicy`` rule, an evaluator, the transport rules, a pin
    /// set, a challenge handler, …
    public let decider: Decider
    /// What decided, as text for people and logs: `"SecurityPolicy rule 5 (certificate pinning)"`,
    /// `"PublicKeysTrustEvaluator"`, … Code asks ``decider`` instead.
    public var decidedBy: String { decider.description }
    /// The rule that decided, for a ``SecurityPolicy``.
    public let rule: SecurityPolicy.Rule?
    /// One sentence saying why.
    public let reason: String
    /// What was checked, in order.
    public let checks: [TrustCheck]
    /// The pins seen and expected, when pinning decided against the server.
    public let pinMismatch: PinMismatch?
    /// The evaluation time from which the decision no longer holds, when something besides the
    /// certificates' own validity limits it: the earliest `nextUpdate` of the revocation answers
    /// it relied on. A ``DecisionCache`` reuses the decision only for evaluation times before it;
    /// `nil` when nothing but the certificates limits it.
    public let reusableUntil: Date?
    /// Whether the decision let a certificate through without an answer it asked for (revocation
    /// soft-fail: a responder down, a CRL out of reach). It stands for this connection, but a
    /// ``DecisionCache`` keeps it no longer than a rejection, so that the answer is sought again soon.
    public let isProvisional: Bool

    /// Creates a decision made by `decider`.
    public init(
        isTrusted: Bool,
        decider: Decider,
        rule: SecurityPolicy.Rule? = nil,
        reason: String,
        checks: [TrustCheck] = [],
        pinMismatch: PinMismatch? = nil,
        reusableUntil: Date? = nil,
        isProvisional: Bool = false
    ) {
        self.isTrusted = isTrusted
        self.decider = decider
        self.rule = rule
        // Reasons quote names from certificates and servers: no control character is shown raw.
        self.reason = reason.escapingControlCharacters
        self.checks = checks
        self.pinMismatch = pinMismatch
        self.reusableUntil = reusableUntil
        self.isProvisional = isProvisional
    }

    /// The last full trust evaluation that was made, if any.
    public var lastEvaluation: TrustEvaluation? { checks.last(where: { $0.evaluation != nil })?.evaluation }

    /// `trusted (…)` or `rejected: …`, with the pin report on a mismatch.
    public var description: String {
        var text = isTrusted ? "trusted (\(reason))" : "rejected: \(reason)"
        if let pinMismatch { text += "\n" + pinMismatch.description }
        return text
    }
}

/// One check made on the way to a ``TrustDecision``.
public struct TrustCheck: Sendable, Hashable, CustomStringConvertible {
    /// What was checked: `"system trust under ssl(api.example.com)"`, `"public-key pin"`, …
    public let name: String
    /// Whether it passed.
    public let passed: Bool
    /// The trust evaluation behind the check, if it was one.
    public let evaluation: TrustEvaluation?
    private let explicitDetail: String?

    /// The specifics (for an evaluation, its summary, made when asked for).
    public var detail: String { explicitDetail ?? evaluation?.summary ?? "" }

    /// Creates a check.
    public init(name: String, passed: Bool, detail: String) {
        self.name = name.escapingControlCharacters
        self.passed = passed
        self.explicitDetail = detail.escapingControlCharacters
        self.evaluation = nil
    }

    /// Creates the check that records a trust evaluation.
    public init(name: String, evaluation: TrustEvaluation) {
        self.name = name
        self.passed = evaluation.isTrusted
        self.explicitDetail = nil
        self.evaluation = evaluation
    }

    /// `✓ name: detail` or `✗ name: detail`.
    public var description: String { "\(passed ? "pass" : "fail") \(name): \(detail)" }
}

extension TrustDecision {
    /// The path later checks (transport rules, pin sets) look at: the validated path when there
    /// is one (anchor last), else what the server presented.
    func checkedPath(of trust: ServerTrust) -> [DERCertificate] {
        lastEvaluation.flatMap { $0.isTrusted ? $0.path : nil } ?? trust.chain
    }

    /// This trusted decision after a later check let it through: the same decider, rule and
    /// reason (with `note` appended), with `checks`, and the pin mismatch a report-only check saw
    /// (this decision's own otherwise).
    /// Its reuse bounds only tighten: the earlier of `reusableUntil` and this decision's own, and
    /// provisional if either is.
    func stillTrusted(
        checks: [TrustCheck], pinMismatch: PinMismatch? = nil, note: String? = nil,
        reusableUntil: Date? = nil, provisional: Bool = false
    ) -> TrustDecision {
        TrustDecision(
            isTrusted: true, decider: decider, rule: rule, reason: reason + (note.map { "; " + $0 } ?? ""),
            checks: checks, pinMismatch: pinMismatch ?? self.pinMismatch,
            reusableUntil: Self.earlier(self.reusableUntil, reusableUntil), isProvisional: isProvisional || provisional
        )
    }

    /// The same decision under another decider (a manager or composite naming the way it took),
    /// with `checks` when given.
    func relabeled(decider: Decider, checks: [TrustCheck]? = nil) -> TrustDecision {
        TrustDecision(
            isTrusted: isTrusted, decider: decider, rule: rule, reason: reason, checks: checks ?? self.checks,
            pinMismatch: pinMismatch, reusableUntil: reusableUntil, isProvisional: isProvisional
        )
    }

    /// The earlier of two optional times; `nil` only when both are.
    static func earlier(_ first: Date?, _ second: Date?) -> Date? {
        guard let first else { return second }
        guard let second else { return first }
        return min(first, second)
    }
}
