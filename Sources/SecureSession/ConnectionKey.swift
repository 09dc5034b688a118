import TransportSecurity

/// What makes two requests able to share a connection: scheme, host, port, the client identity
/// offered, the evaluator that trusted the server and the challenge handler consulted.
struct ConnectionKey: Sendable, Hashable, CustomStringConvertible {
    let isSecure: Bool
    let host: String
    let port: Int
    /// SHA-256 of the client identity's leaf, if one is offered.
    let identity: [UInt8]?
    let evaluator: AnyServerTrustEvaluator
    /// The challenge handler that answers the server-trust and client-certificate challenges of
    /// the connection, if any.
    let handler: HandlerIdentity?
    /// Whether the connection serves one request only (its server trust was put to that
    /// request's own challenge handler).
    let isSingleUse: Bool

    var description: String { "\(isSecure ? "https" : "http")://\(host):\(port)" }
}
