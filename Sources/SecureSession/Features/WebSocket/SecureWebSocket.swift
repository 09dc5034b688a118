import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import TransportSecurity

/// An open WebSocket of a ``SecureSession`` (``SecureSession/webSocket(_:headers:subprotocols:maximumMessageSize:_:)``):
/// send text and binary messages, read the server's as they arrive, close.
///
/// The server's pings are answered as ``messages`` is read (a WebSocket whose messages nobody
/// reads answers none). Frames the client sends are masked with fresh random keys, as RFC 6455
/// §5.3 asks.
public struct SecureWebSocket: Sendable {
    /// The URL connected to.
    public let url: URL
    /// The server's `101 Switching Protocols` answer.
    public let response: ResponseHead
    /// The subprotocol the server chose among those offered, if any.
    public let subprotocol: String?
    /// The decision on the server's certificate chain (`nil` over `ws://`).
    public let trustDecision: TrustDecision?
    /// The server's messages, as they arrive; read by one task, once.
    public var messages: WebSocketMessages { WebSocketMessages(connection: connection) }

    let connection: WebSocketConnection

    /// Sends a text message, returning once the socket took it (a sender faster than the
    /// connection waits instead of piling messages up in memory).
    /// - Throws: ``SecureSessionError/invalidRequest(_:)`` once the WebSocket is closing; the
    ///   connection's failure.
    public func send(_ text: String) async throws {
        try await connection.send(.text, ByteBuffer(string: text))
    }

    /// Sends a binary message, returning once the socket took it.
    /// - Throws: As ``send(_:)``.
    public func send(_ bytes: some Sequence<UInt8>) async throws {
        try await connection.send(.binary, ByteBuffer(bytes: Array(bytes)))
    }

    /// Starts the closing handshake: sends a close frame with `code` and `reason` (at most 123
    /// bytes of UTF-8). ``messages`` goes on until the server's close frame ends it.
    /// - Parameters:
    ///   - code: 1000 (normal closure) unless another status applies (RFC 6455 §7.4.1).
    ///   - reason: Why, for the server's logs.
    /// - Throws: ``SecureSessionError/invalidRequest(_:)`` for a code a client may not send or a
    ///   reason over 123 bytes; the connection's failure.
    public func close(code: UInt16 = 1000, reason: String = "") async throws {
        try await connection.close(WebSocketClose(code: code, reason: reason))
    }

    /// The server's close frame, once ``messages`` has read it; `nil` before.
    public var closeReceived: WebSocketClose? { connection.closeReceived }
}

/// The server's messages of a ``SecureWebSocket``: text and binary messages, whole; it ends with
/// the server's close frame (then in ``SecureWebSocket/closeReceived``).
///
/// Reading answers the server's pings. It throws ``SecureSessionError`` when the connection
/// fails: `invalidResponse` for a server breaking the protocol (text that is not UTF-8, closed
/// with 1007; a masked frame, 1002), `responseTooLarge` for a message over the limit (closed with
/// 1009), `connectionFailed` for a connection that ended without a close frame (1006).
public struct WebSocketMessages: AsyncSequence, Sendable {
    /// A text or binary message.
    public typealias Element = WebSocketMessage

    let connection: WebSocketConnection

    /// Makes the one iterator; a second fails at its first `next()` (the messages are read once).
    public func makeAsyncIterator() -> Iterator {
        Iterator(connection: connection, isFirst: connection.claimReader())
    }

    /// Reads the next message.
    public struct Iterator: AsyncIteratorProtocol {
        let connection: WebSocketConnection
        let isFirst: Bool

        /// The next message; `nil` once the server has closed.
        public mutating func next() async throws -> WebSocketMessage? {
            guard isFirst else {
                throw SecureSessionError.invalidRequest("a WebSocket's messages are read by one iterator: another is already reading them")
            }
            return try await connection.nextMessage()
        }
    }
}
