/// How a request uses the session's ``ResponseCache`` (URLRequest's `cachePolicy`). Only `GET`
/// requests use it; without a cache every policy loads from the network.
public enum RequestCachePolicy: Sendable, Hashable {
    /// RFC 9111: a fresh kept response answers the request; a stale one (or one whose server
    /// said `no-cache`) is revalidated with its `ETag` or `Last-Modified` first, and a
    /// `304 Not Modified` answers with the kept body; the request's own `Cache-Control`
    /// (`no-cache`, `no-store`, `max-age`, `max-stale`, `min-fresh`, `only-if-cached`) and
    /// `Pragma: no-cache` are followed; a stale response answers within its
    /// `stale-while-revalidate` (revalidated in the background) or, when the server fails, its
    /// `stale-if-error` (RFC 5861). The default.
    case useProtocolCachePolicy
    /// Loads from the network, whatever is kept, and keeps the response.
    case reloadIgnoringCacheData
    /// A kept response answers however old it is; without one, the request loads and keeps the
    /// response.
    case returnCacheDataElseLoad
    /// A kept response answers however old it is; without one, the request fails with
    /// ``SecureSessionError/notCached(_:)`` and nothing is sent (offline use).
    case returnCacheDataDontLoad
}
