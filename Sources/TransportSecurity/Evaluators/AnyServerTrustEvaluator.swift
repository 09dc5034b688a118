/// A type-erased ``ServerTrustEvaluating``, equal and hashable by the evaluator it wraps.
public struct AnyServerTrustEvaluator: ServerTrustEvaluating, CustomStringConvertible {
    /// The wrapped evaluator.
    public let base: any ServerTrustEvaluating
    private let isEqualToBase: @Sendable (any ServerTrustEvaluating) -> Bool
    private let hashBase: @Sendable (inout Hasher) -> Void

    /// Wraps an evaluator (an already wrapped one is not wrapped twice).
    public init(_ evaluator: any ServerTrustEvaluating) {
        if let erased = evaluator as? AnyServerTrustEvaluator {
            self = erased
        } else {
            self = Self.wrapping(evaluator)
        }
    }

    private init(
        base: any ServerTrustEvaluating,
        isEqualToBase: @escaping @Sendable (any ServerTrustEvaluating) -> Bool,
        hashBase: @escaping @Sendable (inout Hasher) -> Void
    ) {
        self.base = base
        self.isEqualToBase = isEqualToBase
        self.hashBase = hashBase
    }

    private static func wrapping<Evaluator: ServerTrustEvaluating>(_ evaluator: Evaluator) -> AnyServerTrustEvaluator {
        AnyServerTrustEvaluator(
            base: evaluator,
            isEqualToBase: { ($0 as? Evaluator) == evaluator },
            hashBase: { hasher in
                hasher.combine(ObjectIdentifier(Evaluator.self))
                hasher.combine(evaluator)
            }
        )
    }

    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        await base.evaluate(trust, forHost: host)
    }

    /// The wrapped evaluator's type name.
    public var description: String { String(describing: type(of: base)) }

    public static func == (lhs: AnyServerTrustEvaluator, rhs: AnyServerTrustEvaluator) -> Bool {
        lhs.isEqualToBase(rhs.base)
    }

    public func hash(into hasher: inout Hasher) { hashBase(&hasher) }
}
