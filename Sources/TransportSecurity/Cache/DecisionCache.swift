import Foundation

/// A bounded, thread-safe cache of trust decisions, so that a repeated connection to the same
/// server with the same chain is decided without validating again.
///
/// An entry is keyed by the chain's certificate fingerprints, the host, the server trust's
/// validation policy, the evaluator, the trust store's and anchors' fingerprints, the limits and
/// (when fixed) the evaluation time. It is used
/// only while:
/// - it is younger than ``maximumAge`` (``rejectionAge`` for a rejection, and for a decision that
///   is ``TrustDecision/isProvisional``, made without a revocation answer it asked for), and
/// - the evaluation time is before the earliest `notAfter` of the chain and validated path, and
///   before the decision's own ``TrustDecision/reusableUntil`` (the `nextUpdate` of the
///   revocation answers it relied on).
///
/// A changed trust store has a new fingerprint, so it never meets an entry made with the old one.
/// Lookups are synchronous, so a cache hit needs no task hop.
public final class DecisionCache: @unchecked Sendable {
    /// How many decisions are kept at most.
    public let capacity: Int
    /// How long a positive decision is reused at most.
    public let maximumAge: TimeInterval
    /// How long a rejection, or a provisional decision, is reused at most.
    public let rejectionAge: TimeInterval

    private let clock: @Sendable () -> Date
    private let lock = NSLock()
    private var entries: [DecisionCacheKey: Entry] = [:]
    private var sequence: UInt64 = 0
    private var hitCount = 0
    private var missCount = 0

    private struct Entry {
        let decision: TrustDecision
        let storedAt: Date
        let usableUntil: Date
        let factsValidUntil: Date
        let sequence: UInt64
    }

    /// Creates a cache.
    /// - Parameters:
    ///   - capacity: The most decisions kept (oldest evicted first).
    ///   - maximumAge: The longest a positive decision is reused.
    ///   - rejectionAge: The longest a rejection or a provisional decision is reused.
    ///   - clock: The wall clock (tests pass their own).
    public init(
        capacity: Int = 1024,
        maximumAge: TimeInterval = 3600,
        rejectionAge: TimeInterval = 60,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.capacity = max(1, capacity)
        self.maximumAge = maximumAge
        self.rejectionAge = rejectionAge
        self.clock = clock
    }

    /// The shared cache.
    public static let shared = DecisionCache()

    /// The cached decision for this key, if one is usable now.
    public func cachedDecision(for key: DecisionCacheKey) -> TrustDecision? {
        let now = clock()
        let evaluationTime = key.evaluationTime ?? now
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[key] else {
            missCount += 1
            return nil
        }
        guard now < entry.usableUntil, evaluationTime < entry.factsValidUntil, now >= entry.storedAt else {
            entries[key] = nil
            missCount += 1
            return nil
        }
        hitCount += 1
        return entry.decision
    }

    /// Stores a decision made for the trust this key describes.
    public func store(_ decision: TrustDecision, for key: DecisionCacheKey, chain: [DERCertificate]) {
        let now = clock()
        let validated = decision.checks.compactMap(\.evaluation).flatMap(\.path)
        let certificatesValidUntil = (chain + validated).earliestExpiry ?? now
        let factsValidUntil = TrustDecision.earlier(certificatesValidUntil, decision.reusableUntil) ?? now
        let entryAge = decision.isTrusted && !decision.isProvisional ? maximumAge : rejectionAge
        lock.lock()
        defer { lock.unlock() }
        if entries[key] == nil, entries.count >= capacity { evict(now: now) }
        sequence += 1
        entries[key] = Entry(
            decision: decision,
            storedAt: now,
            usableUntil: now.addingTimeInterval(entryAge),
            factsValidUntil: factsValidUntil,
            sequence: sequence
        )
    }

    /// Forgets every decision.
    public func removeAll() {
        lock.lock()
        entries.removeAll()
        lock.unlock()
    }

    /// How many lookups hit and missed so far.
    public var statistics: (hits: Int, misses: Int, entries: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (hitCount, missCount, entries.count)
    }

    /// Drops expired entries; when none expired, the oldest one. Called with the lock held.
    private func evict(now: Date) {
        let before = entries.count
        entries = entries.filter { now < $0.value.usableUntil }
        guard entries.count == before, let oldest = entries.min(by: { $0.value.sequence < $1.value.sequence }) else {
            return
        }
        entries[oldest.key] = nil
    }
}
