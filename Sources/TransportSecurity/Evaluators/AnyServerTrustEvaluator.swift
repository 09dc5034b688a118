/// A type-erased ``ServerTrustEvaluating``, equal and hashable by the evaluator it wraps.
///
/// The wrapped evaluator's hash is computed once, when it is wrapped, and copies of one wrapper
/// are equal without comparing the evaluators: a decision-cache hit hashes and compares its
/// key's evaluator, and a policy with pinned certificates is costly to hash and compare.
public struct AnyServerTrustEvaluator: ServerTrustEvaluating, CustomStringConvertible {
    /// The wrapped evaluator.
    public let base: any ServerTrustEvaluating
    private let isEqualToBase: @Sendable (any ServerTrustEvaluating) -> Bool
    private let baseHash: Int
    private let wrapping: WrappingIdentity

    /// Tells apart the wrappings: copies of one share it.
    private final class WrappingIdentity: Sendable {}

    /// Wraps an evaluator (an already wrapped one is not wrapped twice).
    public init(_ evaluator: some ServerTrustEvaluating) {
        if let erased = evaluator as? AnyServerTrustEvaluator {
            self = erased
        } else {
            self.init(wrapping: evaluator)
        }
    }

    private init<Evaluator: ServerTrustEvaluating>(wrapping evaluator: Evaluator) {
        var hasher = Hasher()
        hasher.combine(ObjectIdentifier(Evaluator.self))
        hasher.combine(evaluator)
        self.base = evaluator
        self.isEqualToBase = { ($0 as? Evaluator) == evaluator }
        self.baseHash = hasher.finalize()
        self.wrapping = WrappingIdentity()
    }

    /// The wrapped evaluator's decision.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        await base.evaluate(trust, forHost: host)
    }

    /// The wrapped evaluator's type name.
    public var description: String { String(describing: type(of: base)) }

    /// Whether both wrap the same evaluator: copies of one wrapping at once, others when their
    /// evaluators are of one type and equal.
    public static func == (lhs: AnyServerTrustEvaluator, rhs: AnyServerTrustEvaluator) -> Bool {
        lhs.wrapping === rhs.wrapping || (lhs.baseHash == rhs.baseHash && lhs.isEqualToBase(rhs.base))
    }

    /// The wrapped evaluator's hash, computed once when it was wrapped.
    public func hash(into hasher: inout Hasher) { hasher.combine(baseHash) }
}
