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
}
