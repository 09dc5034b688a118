import NIOCore
import NIOHTTP1
import TransportSecurity

/// Receives each part of a response body, with the response's head; an empty part first, when the
/// head arrives.
typealias ResponseBodySink = @Sendable (HTTPResponseHead, ByteBuffer) async throws -> Void

/// A connection of the session's pool: HTTP/1.1, leased to one request at a time
/// (``HTTP1Connection``), or HTTP/2, shared by concurrent requests, each on a stream of its own
/// (``HTTP2Connection``).
protocol HTTPConnection: ClosableConnection {
    /// The scheme, host, port, identity and policy it was made for.
    var key: ConnectionKey { get }
    /// The decision that trusted the server (TLS connections).
    var trustDecision: TrustDecision? { get }
    /// What opening it took.
    var establishment: ConnectionEstablishment { get }
    /// Whether it can take another request.
    var isUsable: Bool { get }
    /// Sends a request and reads its response, the body into `sink`, before returning. What the
    /// request occupies (the connection for HTTP/1.1, its stream for HTTP/2) is tracked by
    /// `closer` meanwhile, so that the request's deadline closes it and nothing else. Unless
    /// `mayWaitToContinue` is `false` (after a server refused the expectation), a large body
    /// may wait for `100 Continue` (``ExpectContinue``, HTTP/1.1). `replayable`: whether the
    /// request may be sent twice (``SecureRequest/isReplayable``), which decides whether an
    /// HTTP/2 stream a `GOAWAY` with an error code dropped counts as unprocessed.
    func execute(head: HTTPRequestHead, replayable: Bool, body: RequestBodySource?, mayWaitToContinue: Bool, closer: ConnectionCloser, sink: @escaping ResponseBodySink)
        async throws -> ExchangedResponse
}
