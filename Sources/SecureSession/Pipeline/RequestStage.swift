/// What a request is doing, for a timeout to say where it ran out of time: waiting for a pooled
/// connection, connecting, in its TLS handshake, waiting for the response or reading its body.
/// The request's ``Deadline`` keeps the stage it is in.
enum RequestStage: Sendable {
    /// Waiting for a connection to the server: the per-host limit is reached, or another
    /// request is making the connection this one will share.
    case waitingForConnection(ConnectionKey)
    /// Waiting for its turn under the session's rate limit (`RequestRateLimiter`).
    case waitingForTurn(ConnectionKey)
    /// Waiting for one of the `maximum` requests under way to the server to end (the rate
    /// limiter's `RequestRateLimiter.maximumConcurrentRequests`).
    case waitingForSlot(ConnectionKey, maximum: Int)
    /// Making the TCP connection (to the server, or to its proxy).
    case connecting(to: String)
    /// The TLS handshake with the server (through the proxy's tunnel, when there is one).
    case securing(ConnectionKey, proxy: String?)
    /// Cleartext through a SOCKS proxy: the proxy is opening its tunnel to the server.
    case tunnelling(ConnectionKey, proxy: String)
    /// The request is on its way or sent; nothing of the response has come.
    case awaitingResponse(ConnectionKey)
    /// A challenge handler is answering the server's 401.
    case awaitingChallengeHandler(ConnectionKey)
    /// The response's body is arriving: `received` bytes so far (as the caller gets them:
    /// decoded when the session decompresses).
    case readingBody(ConnectionKey, received: Int)

    /// The stage in words, after "timed out after … while".
    var description: String {
        switch self {
        case .waitingForConnection(let key): return "waiting for a connection to \(key)"
        case .waitingForTurn(let key): return "waiting for its turn under the rate limit of \(key)"
        case .waitingForSlot(let key, let maximum):
            let underWay = maximum == 1 ? "the request" : "one of the \(maximum) requests"
            return "waiting for \(underWay) under way to \(key) to end (the rate limiter's maximumConcurrentRequests)"
        case .connecting(let endpoint): return "connecting to \(endpoint)"
        case .securing(let key, let proxy?): return "reaching \(key) through the proxy \(proxy) and making the TLS handshake"
        case .securing(let key, nil): return "making the TLS handshake with \(key)"
        case .tunnelling(let key, let proxy): return "reaching \(key) through the proxy \(proxy)"
        case .awaitingResponse(let key): return "sending the request to \(key) or waiting for its response"
        case .awaitingChallengeHandler(let key): return "waiting for the challenge handler's answer to \(key)'s 401"
        case .readingBody(let key, let received): return "reading the response body from \(key) (\(received) bytes received)"
        }
    }
}
