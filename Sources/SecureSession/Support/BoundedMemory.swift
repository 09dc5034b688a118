import NIOConcurrencyHelpers

/// What a session learnt about its servers, safe from any thread and bounded: beyond ``limit``
/// entries the earliest made is forgotten (the server teaches it again).
final class BoundedMemory<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The most entries kept.
    let limit: Int

    private struct State {
        var values: [Key: Value] = [:]
        /// The keys, earliest entered first.
        var order: [Key] = []
    }

    private let state = NIOLockedValueBox(State())

    init(limit: Int = 1_024) {
        self.limit = max(1, limit)
    }

    /// Keeps `value` for `key`, replacing what was kept for it.
    func remember(_ value: Value, for key: Key) {
        state.withLockedValue { state in
            if state.values.updateValue(value, forKey: key) == nil { state.order.append(key) }
            if state.order.count > limit { state.values[state.order.removeFirst()] = nil }
        }
    }

    /// What is kept for `key`, if anything.
    func value(for key: Key) -> Value? {
        state.withLockedValue { $0.values[key] }
    }
}

/// A server as the session remembers it: host and port.
struct HostAndPort: Hashable, Sendable {
    let host: String
    let port: Int
}
