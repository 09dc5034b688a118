/// Maps host patterns to evaluators: the most specific matching pattern decides (Alamofire's
/// `ServerTrustManager`, with TrustKit-style subdomain patterns).
///
/// ```swift
/// let manager = try ServerTrustManager(evaluators: [
///     "api.example.com": PublicKeysTrustEvaluator(pins: pins),
///     "**.example.com": DefaultTrustEvaluator(),
/// ])
/// ```
public struct ServerTrustManager: Sendable, Hashable {
    /// Whether a host that matches no pattern is rejected (`true`) or left to the default
    /// evaluator (`false`).
    public let allHostsMustBeEvaluated: Bool
    /// The patterns and their evaluators, most specific first.
    public let rules: [(pattern: HostPattern, evaluator: AnyServerTrustEvaluator)]
    /// The evaluator for unmatched hosts when ``allHostsMustBeEvaluated`` is `false`.
    public let fallback: AnyServerTrustEvaluator

    /// Creates a manager.
    /// - Parameters:
    ///   - allHostsMustBeEvaluated: Reject hosts that match no pattern. Default `true`.
    ///   - evaluators: Patterns and their evaluators.
    ///   - fallback: The evaluator for unmatched hosts when they are not rejected.
    /// - Throws: ``HostPatternError`` for a pattern that cannot be parsed.
    public init(
        allHostsMustBeEvaluated: Bool = true,
        evaluators: [String: any ServerTrustEvaluating],
        fallback: any ServerTrustEvaluating = DefaultTrustEvaluator()
    ) throws {
        self.allHostsMustBeEvaluated = allHostsMustBeEvaluated
        let rules: [(HostPattern, AnyServerTrustEvaluator)] = try evaluators.map { pattern, evaluator in
            (try HostPattern(pattern), AnyServerTrustEvaluator(evaluator))
        }
        self.rules = rules.sorted { $0.0.specificity > $1.0.specificity || ($0.0.specificity == $1.0.specificity && $0.0.suffix < $1.0.suffix) }
        self.fallback = AnyServerTrustEvaluator(fallback)
    }

    /// The pattern and evaluator that apply to `host`, if any pattern matches.
    public func rule(forHost host: String) -> (pattern: HostPattern, evaluator: AnyServerTrustEvaluator)? {
        rules.first { $0.pattern.matches(host) }
    }

    /// Decides on `trust` for `host` with the evaluator of the most specific matching pattern.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        if let rule = rule(forHost: host) {
            let decision = await rule.evaluator.evaluate(trust, forHost: host)
            return decision.relabeled(decider: .hostPattern("\(rule.pattern)", decision.decider))
        }
        guard !allHostsMustBeEvaluated else {
            return TrustDecision(
                isTrusted: false,
                decider: .evaluator("ServerTrustManager"),
                reason: "no evaluator is configured for \(host) and every host must be evaluated"
            )
        }
        return await fallback.evaluate(trust, forHost: host)
    }

    /// Whether both have the same rules in the same order, the same fallback and the same
    /// ``allHostsMustBeEvaluated``.
    public static func == (lhs: ServerTrustManager, rhs: ServerTrustManager) -> Bool {
        lhs.allHostsMustBeEvaluated == rhs.allHostsMustBeEvaluated && lhs.fallback == rhs.fallback
            && lhs.rules.map(\.pattern) == rhs.rules.map(\.pattern) && lhs.rules.map(\.evaluator) == rhs.rules.map(\.evaluator)
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(allHostsMustBeEvaluated)
        hasher.combine(fallback)
        for rule in rules {
            hasher.combine(rule.pattern)
            hasher.combine(rule.evaluator)
        }
    }
}

extension ServerTrustManager: ServerTrustEvaluating {}
