import Foundation
import PKIBuilder
import TestServers
import Testing
import TransportSecurity

/// Counts how often it is asked, and answers like its base.
struct CountingEvaluator: ServerTrustEvaluating {
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func increment() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
    let base: DefaultTrustEvaluator
    let counter: Counter

    func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        counter.increment()
        return await base.evaluate(trust, forHost: host)
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.counter === rhs.counter }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(counter)) }
}

@Suite("Decision cache")
struct DecisionCacheTests {
    let fixture = LabFixture.shared

    func make(clock: ManualClock, capacity: Int = 16) -> (CachingTrustEvaluator, CountingEvaluator.Counter, DecisionCache) {
        let counter = CountingEvaluator.Counter()
        let cache = DecisionCache(capacity: capacity, maximumAge: 600, rejectionAge: 30, clock: { clock.now })
        return (CachingTrustEvaluator(CountingEvaluator(base: DefaultTrustEvaluator(), counter: counter), cache: cache), counter, cache)
    }

    @Test("a repeated evaluation is a hit, answered synchronously")
    func hits() async {
        let (evaluator, counter, cache) = make(clock: ManualClock(Date()))
        let trust = fixture.trust(.legitimate)
        #expect(evaluator.cachedDecision(for: trust, forHost: fixture.host) == nil)
        #expect(await evaluator.evaluate(trust, forHost: fixture.host).isTrusted)
        #expect(await evaluator.evaluate(trust, forHost: fixture.host).isTrusted)
        #expect(counter.value == 1)
        #expect(evaluator.cachedDecision(for: trust, forHost: fixture.host)?.isTrusted == true)
        #expect(cache.statistics.hits == 2)
    }

    @Test("another host, chain, validation policy, evaluator or evaluation time is another entry")
    func keys() async {
        let (evaluator, counter, _) = make(clock: ManualClock(Date()))
        _ = await evaluator.evaluate(fixture.trust(.legitimate, policy: .basicX509), forHost: fixture.host)
        _ = await evaluator.evaluate(fixture.trust(.legitimate), forHost: fixture.host)
        _ = await evaluator.evaluate(fixture.trust(.legitimate), forHost: "other.example.test")
        _ = await evaluator.evaluate(fixture.trust(.reissuedSameKey), forHost: fixture.host)
        var later = fixture.trust(.legitimate)
        later.evaluationTime = fixture.now.addingTimeInterval(60)
        _ = await evaluator.evaluate(later, forHost: fixture.host)
        #expect(counter.value == 5)
    }

    @Test("hosts in keys compare bytes: a canonically equivalent spelling of a host is another entry")
    func hostKeysCompareBytes() async {
        let (evaluator, counter, _) = make(clock: ManualClock(Date()))
        let trust = fixture.trust(.legitimate)
        _ = await evaluator.evaluate(trust, forHost: "\u{E5}.example")
        _ = await evaluator.evaluate(trust, forHost: "a\u{30A}.example")
        _ = await evaluator.evaluate(trust, forHost: "\u{E5}.example")
        #expect(counter.value == 2)
        let key = DecisionCacheKey(trust: trust, host: "\u{E5}.example", evaluator: DefaultTrustEvaluator())
        let equivalent = DecisionCacheKey(trust: trust, host: "a\u{30A}.example", evaluator: DefaultTrustEvaluator())
        #expect(key != nil && key != equivalent)
        #expect(key?.host == "\u{E5}.example")
    }

    @Test("entries expire with their age, rejections sooner")
    func ageing() async {
        let clock = ManualClock(Date())
        let (evaluator, counter, _) = make(clock: clock)
        let good = fixture.trust(.legitimate)
        let bad = fixture.trust(.untrustedRoot)
        _ = await evaluator.evaluate(good, forHost: fixture.host)
        _ = await evaluator.evaluate(bad, forHost: fixture.host)
        clock.advance(31)
        #expect(evaluator.cachedDecision(for: good, forHost: fixture.host) != nil)
        #expect(evaluator.cachedDecision(for: bad, forHost: fixture.host) == nil)
        clock.advance(600)
        #expect(evaluator.cachedDecision(for: good, forHost: fixture.host) == nil)
        _ = await evaluator.evaluate(good, forHost: fixture.host)
        #expect(counter.value == 3)
    }

    @Test("a trusted decision is never reused past the earliest notAfter of the path")
    func certificateExpiry() async throws {
        let lab = fixture.lab
        let clock = ManualClock(lab.pki.now)
        let cache = DecisionCache(maximumAge: 86_400, clock: { clock.now })
        let shortLived = try lab.pki.issue(.server(lab.host).valid(from: -PKI.day, until: 3600), by: lab.intermediate)
        let fixed = fixture.trust(chain: [shortLived, lab.intermediate])
        let decision = await DefaultTrustEvaluator().evaluate(fixed, forHost: lab.host)
        #expect(decision.isTrusted)
        // Stored for evaluations "now" (no fixed time): usable until the leaf expires, although
        // the maximum age is a day.
        var live = fixed
        live.evaluationTime = nil
        let key = try #require(DecisionCacheKey(trust: live, host: lab.host, evaluator: DefaultTrustEvaluator()))
        cache.store(decision, for: key, chain: live.chain)
        #expect(cache.cachedDecision(for: key) != nil)
        clock.advance(3601)
        #expect(cache.cachedDecision(for: key) == nil)
    }

    @Test("a decision is never reused past its own reusableUntil (the next update of the revocation answers behind it)")
    func decisionBound() async throws {
        let clock = ManualClock(fixture.now)
        let cache = DecisionCache(maximumAge: 86_400, clock: { clock.now })
        var live = fixture.trust(.legitimate)
        live.evaluationTime = nil
        let key = try #require(DecisionCacheKey(trust: live, host: fixture.host, evaluator: DefaultTrustEvaluator()))
        let answeredUntil = fixture.now.addingTimeInterval(120)
        cache.store(TrustDecision(isTrusted: true, decider: .evaluator("test"), reason: "test", reusableUntil: answeredUntil), for: key, chain: live.chain)
        clock.advance(119)
        #expect(cache.cachedDecision(for: key)?.reusableUntil == answeredUntil)
        clock.advance(1)
        #expect(cache.cachedDecision(for: key) == nil, "the answer is no longer current, although the maximum age is a day")
        // An answer that was current only at the moment of the evaluation (OCSP without nextUpdate).
        cache.store(TrustDecision(isTrusted: true, decider: .evaluator("test"), reason: "test", reusableUntil: clock.now), for: key, chain: live.chain)
        #expect(cache.cachedDecision(for: key) == nil)
        // A fixed evaluation time before the bound is answered from the cache.
        let fixedKey = try #require(DecisionCacheKey(trust: fixture.trust(.legitimate), host: fixture.host, evaluator: DefaultTrustEvaluator()))
        cache.store(TrustDecision(isTrusted: true, decider: .evaluator("test"), reason: "test", reusableUntil: fixture.now.addingTimeInterval(1)), for: fixedKey, chain: live.chain)
        #expect(cache.cachedDecision(for: fixedKey) != nil)
    }

    @Test("a provisional decision (let through without a revocation answer) is kept no longer than a rejection")
    func provisional() async throws {
        let clock = ManualClock(Date())
        let cache = DecisionCache(maximumAge: 600, rejectionAge: 30, clock: { clock.now })
        let trust = fixture.trust(.legitimate)
        func key(_ host: String) throws -> DecisionCacheKey {
            try #require(DecisionCacheKey(trust: trust, host: host, evaluator: DefaultTrustEvaluator()))
        }
        cache.store(TrustDecision(isTrusted: true, decider: .evaluator("test"), reason: "soft-fail", isProvisional: true), for: try key("a.example.test"), chain: trust.chain)
        cache.store(TrustDecision(isTrusted: true, decider: .evaluator("test"), reason: "answered"), for: try key("b.example.test"), chain: trust.chain)
        clock.advance(29)
        #expect(cache.cachedDecision(for: try key("a.example.test"))?.isProvisional == true)
        clock.advance(2)
        #expect(cache.cachedDecision(for: try key("a.example.test")) == nil)
        #expect(cache.cachedDecision(for: try key("b.example.test")) != nil)
    }

    @Test("a changed trust store never answers from an entry made with the old one")
    func storeChange() async {
        let (evaluator, counter, _) = make(clock: ManualClock(Date()))
        var trust = fixture.trust(.legitimate)
        #expect(await evaluator.evaluate(trust, forHost: fixture.host).isTrusted)
        trust.systemStore = TrustStore([fixture.lab.proxyRoot.der])
        #expect(evaluator.cachedDecision(for: trust, forHost: fixture.host) == nil)
        #expect(await evaluator.evaluate(trust, forHost: fixture.host).isTrusted == false)
        #expect(counter.value == 2)
    }

    @Test("the cache stays within its capacity")
    func bounded() async {
        let (evaluator, _, cache) = make(clock: ManualClock(Date()), capacity: 3)
        for host in (0..<10).map({ "h\($0).example.test" }) {
            _ = await evaluator.evaluate(fixture.trust(.legitimate), forHost: host)
        }
        #expect(cache.statistics.entries <= 3)
    }

    @Test("concurrent evaluations are safe and agree")
    func concurrency() async {
        let (evaluator, _, cache) = make(clock: ManualClock(Date()), capacity: 8)
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let server: TrustLab.Server = index.isMultiple(of: 2) ? .legitimate : .untrustedRoot
                    return await evaluator.evaluate(fixture.trust(server), forHost: "h\(index % 12).example.test").isTrusted
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64)
        #expect(cache.statistics.entries <= 8)
    }
}
