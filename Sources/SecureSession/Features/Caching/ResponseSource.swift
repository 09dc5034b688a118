/// Where a ``SecureResponse`` came from (URLSession's `resourceFetchType`).
public enum ResponseSource: Sendable, Hashable {
    /// From the server.
    case network
    /// From the session's ``ResponseCache``, without the network: its ``SecureResponse/trustDecision``
    /// and ``SecureResponse/tlsVersion`` are those of the connection that first brought it, and
    /// its `Age` field says how old it is; its ``SecureResponse/timing`` has no connection and
    /// no phase (all zero).
    case cache
    /// From the cache after the server confirmed with a `304 Not Modified` that it is current:
    /// the kept body with the head the `304` updated, the trust decision of the connection that
    /// confirmed it.
    case revalidated
    /// From the cache, stale within its `stale-while-revalidate` (RFC 5861 §3), without the
    /// network: the session revalidates it in the background, for the requests that follow.
    case staleWhileRevalidating
    /// From the cache, stale within its `stale-if-error` (RFC 5861 §4, or the request's own),
    /// because the server could not give a current answer: `reason` says what failed (a `500`,
    /// `502`, `503` or `504`, a connection that failed, a timeout). Never after a rejected
    /// certificate or a failed TLS handshake: those fail the request.
    case staleAfterFailure(reason: String)
}
