/// A message of a ``SecureWebSocket``: text (UTF-8, checked) or binary, whole (fragments joined).
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary([UInt8])
}

/// How a WebSocket was closed: the close frame's status code and reason (RFC 6455 §7.4).
public struct WebSocketClose: Sendable, Hashable, CustomStringConvertible {
    /// The status code: 1000 normal closure, 1001 going away, 1002 protocol error, 1007 data that
    /// does not fit the message's type, 1009 message too big, 1011 the server's error…; 1005 when
    /// the close frame carried none.
    public let code: UInt16
    /// The reason given, possibly empty.
    public let reason: String

    /// Creates a close.
    public init(code: UInt16, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    /// `1000` or `1000 (done)`.
    public var description: String { reason.isEmpty ? "\(code)" : "\(code) (\(reason))" }
}
