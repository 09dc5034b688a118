/// Answers repeated evaluations from a ``DecisionCache`` and asks the wrapped evaluator only on a
/// miss.
public struct CachingTrustEvaluator: ServerTrustEvaluating {
    /// The evaluator that decides on a miss.
    public let base: AnyServerTrustEvaluator
    /// Where decisions are kept.
    public let cache: DecisionCache

    /// Wraps `evaluator`.
    public init(_ evaluator: any ServerTrustEvaluating, cache: DecisionCache = .shared) {
        self.base = AnyServerTrustEvaluator(evaluator)
        self.cache = cache
    }

    /// The cached decision, without evaluating; `nil` on a miss.
    public func cachedDecision(for trust: ServerTrust, forHost host: String) -> TrustDecision? {
        DecisionCacheKey(trust: trust, host: host, evaluator: base).flatMap(cache.cachedDecision(for:))
    }

    /// The cached decision for this chain, host, evaluator and trust store when one is still
    /// valid; otherwise the wrapped evaluator's, stored for the next time. When the system trust
    /// store cannot be read, every evaluation goes to the wrapped evaluator.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        guard let key = DecisionCacheKey(trust: trust, host: host, evaluator: base) else {
            return await base.evaluate(trust, forHost: host)
        }
        if let cached = cache.cachedDecision(for: key) { return cached }
        let decision = await base.evaluate(trust, forHost: host)
        cache.store(decision, for: key, chain: trust.chain)
        return decision
    }

    /// Whether both wrap equal evaluators and share one cache.
    public static func == (lhs: CachingTrustEvaluator, rhs: CachingTrustEvaluator) -> Bool {
        lhs.base == rhs.base && lhs.cache === rhs.cache
    }

    /// Hashes the wrapped evaluator and the cache's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(base)
        hasher.combine(ObjectIdentifier(cache))
    }
}
