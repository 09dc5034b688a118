import Foundation
import NIOConcurrencyHelpers
import TransportSecurity

/// Responses kept in memory to answer later requests without the network, or with a short
/// revalidation (`304 Not Modified`): the `URLCache` of a ``SecureSession``, with RFC 9111's
/// rules for a private cache (``SecureSessionConfiguration/Responses/cache``), and RFC 5861's
/// stale answers: while revalidated in the background (`stale-while-revalidate`), or when the
/// server fails (`stale-if-error`; never in place of a rejected certificate).
///
/// A response is kept only for requests made the same way, so that a cache never carries a
/// response across a trust boundary: the same URL, client identity, trust evaluator (policy,
/// pins, pin set in force, transport rule), proxy and credentials (`Authorization` and `Cookie`
/// fields, kept as a SHA-256 digest, never as text). A server-side session that calls an API
/// for several users with their own tokens never answers one user's request with another's
/// response, and new pins never serve what was fetched under the old ones.
///
/// Bounded: the least recently used responses go first once ``capacity`` bytes are held, and a
/// response larger than ``maximumEntrySize`` is not kept. Safe to share between sessions and
/// tasks.
public final class ResponseCache: Sendable {
    /// The most bytes held (bodies and heads together).
    public let capacity: Int
    /// The largest response kept, in bytes.
    public let maximumEntrySize: Int
    private let state = NIOLockedValueBox(State())

    private struct State {
        var entries: [CacheKey: [Entry]] = [:]
        var usage = 0
        var uses: UInt64 = 0
        /// The keys whose responses are being revalidated in the background.
        var revalidating: Set<CacheKey> = []
    }

    private struct Entry {
        var response: StoredResponse
        var lastUse: UInt64
    }

    /// Creates an empty cache.
    /// - Parameters:
    ///   - capacity: The most bytes held; 16 MiB by default.
    ///   - maximumEntrySize: The largest response kept; by default a twentieth of `capacity`
    ///     (as `URLCache` keeps no response over 5 % of its size).
    public init(capacity: Int = 16 << 20, maximumEntrySize: Int? = nil) {
        self.capacity = max(0, capacity)
        self.maximumEntrySize = min(self.capacity, max(0, maximumEntrySize ?? self.capacity / 20))
    }

    /// The bytes held now.
    public var usage: Int { state.withLockedValue { $0.usage } }

    /// How many responses are held now.
    public var count: Int { state.withLockedValue { $0.entries.values.reduce(0) { $0 + $1.count } } }

    /// Forgets every response.
    public func removeAll() {
        state.withLockedValue { $0 = State(revalidating: $0.revalidating) }
    }

    /// Forgets every response to `url` (whoever asked for it, however it was trusted).
    public func removeResponses(for url: URL) {
        guard let resource = Self.resource(of: url) else { return }
        invalidate(resource: resource)
    }

    // MARK: What the session asks

    /// The response kept under `key` for a request with `fields`: the newest whose varied fields
    /// match (RFC 9111 §4.1), marked as just used.
    func response(for key: CacheKey, fields: [(name: String, value: String)]) -> StoredResponse? {
        state.withLockedValue { state in
            guard let index = state.entries[key]?.lastIndex(where: { Self.matches($0.response.variedFields, fields) }) else { return nil }
            state.uses += 1
            state.entries[key]![index].lastUse = state.uses
            return state.entries[key]![index].response
        }
    }

    /// Keeps `response` under `key`, in place of any kept for the same varied fields; a response
    /// too large to keep removes that one all the same (it is no longer current).
    func store(_ response: StoredResponse, for key: CacheKey) {
        let size = response.size
        state.withLockedValue { state in
            Self.remove(variedFields: response.variedFields, for: key, from: &state)
            guard size <= maximumEntrySize else { return }
            state.uses += 1
            state.entries[key, default: []].append(Entry(response: response, lastUse: state.uses))
            state.usage += size
            while state.usage > capacity, let oldest = Self.leastRecentlyUsed(in: state.entries) {
                state.usage -= state.entries[oldest.key]![oldest.index].response.size
                state.entries[oldest.key]!.remove(at: oldest.index)
                if state.entries[oldest.key]!.isEmpty { state.entries[oldest.key] = nil }
            }
        }
    }

    /// Forgets the response kept under `key` for the varied fields of `response`: the server
    /// sent a new one that cannot be kept.
    func remove(_ response: StoredResponse, for key: CacheKey) {
        state.withLockedValue { Self.remove(variedFields: response.variedFields, for: key, from: &$0) }
    }

    private static func remove(variedFields: [String: String?], for key: CacheKey, from state: inout State) {
        guard let index = state.entries[key]?.firstIndex(where: { $0.response.variedFields == variedFields }) else { return }
        state.usage -= state.entries[key]![index].response.size
        state.entries[key]!.remove(at: index)
        if state.entries[key]!.isEmpty { state.entries[key] = nil }
    }

    /// Notes that the response under `key` is being revalidated in the background; `false` when
    /// it already was (one revalidation at a time).
    func beginRevalidation(of key: CacheKey) -> Bool {
        state.withLockedValue { $0.revalidating.insert(key).inserted }
    }

    /// Notes that the background revalidation of `key` ended.
    func endRevalidation(of key: CacheKey) {
        _ = state.withLockedValue { $0.revalidating.remove(key) }
    }

    /// Forgets every response to `resource` (``resource(of:)``): after a request that may have
    /// changed it (RFC 9111 §4.4).
    func invalidate(resource: String) {
        state.withLockedValue { state in
            for key in state.entries.keys where key.resource == resource {
                state.usage -= state.entries[key]!.reduce(0) { $0 + $1.response.size }
                state.entries[key] = nil
            }
        }
    }

    /// `scheme://host:port/path?query` of `url`, the host normalized as connections name it:
    /// what a response is kept for. `nil` for a URL without an http(s) scheme or a host.
    static func resource(of url: URL) -> String? {
        ServerName.origin(of: url).map { $0 + SecureRequest(url: url).requestTarget }
    }

    /// Whether a request with `fields` has the values a response was varied on.
    private static func matches(_ varied: [String: String?], _ fields: [(name: String, value: String)]) -> Bool {
        varied.allSatisfy { name, value in CacheKey.value(of: name, in: fields) == value }
    }

    private static func leastRecentlyUsed(in entries: [CacheKey: [Entry]]) -> (key: CacheKey, index: Int)? {
        var oldest: (key: CacheKey, index: Int, use: UInt64)?
        for (key, list) in entries {
            for (index, entry) in list.enumerated() where entry.lastUse < oldest?.use ?? .max {
                oldest = (key, index, entry.lastUse)
            }
        }
        return oldest.map { ($0.key, $0.index) }
    }
}
