import NIOHTTP1
import TransportSecurity

/// The head of a response, handed to ``SecureSession/stream(_:head:into:)`` before its body:
/// status, protocol version and header fields.
public struct ResponseHead: Sendable {
    /// The status code.
    public let statusCode: Int
    /// The reason phrase: swift-nio's standard one for the code (`OK` for 200), not the one the
    /// server wrote (swift-nio's parser keeps no other); empty for a code it does not name. HTTP/2
    /// has none: the standard one too.
    public let reasonPhrase: String
    /// The protocol version: `HTTP/2`, `HTTP/1.1` or `HTTP/1.0`.
    public let httpVersion: String
    /// Header fields, in order.
    public let headers: [(name: String, value: String)]

    /// The value of the first header field named `name`, compared without case in ASCII.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// Creates a head (for an interceptor's tests).
    public init(statusCode: Int, reasonPhrase: String = "", httpVersion: String = "HTTP/1.1", headers: [(name: String, value: String)] = []) {
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.httpVersion = httpVersion
        self.headers = headers
    }

    init(_ head: HTTPResponseHead) {
        statusCode = Int(head.status.code)
        reasonPhrase = head.status.reasonPhrase
        httpVersion = Self.text(of: head.version)
        headers = head.headers.map { ($0.name, $0.value) }
    }

    /// The head of `response`.
    public init(_ response: SecureResponse) {
        statusCode = response.statusCode
        reasonPhrase = response.reasonPhrase
        httpVersion = response.httpVersion
        headers = response.headers
    }

    /// `HTTP/2`, `HTTP/1.1`, `HTTP/1.0`.
    static func text(of version: HTTPVersion) -> String {
        version.major >= 2 ? "HTTP/\(version.major)" : "HTTP/\(version.major).\(version.minor)"
    }
}
