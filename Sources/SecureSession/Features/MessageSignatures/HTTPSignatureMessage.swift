import Foundation

/// An HTTP message as signatures see it (RFC 9421): a request (method, URL, header fields) or a
/// response (status, header fields, and the request it answers, for components marked `;req`),
/// with its body when the `Content-Digest` is to be checked.
///
/// ```swift
/// // On a server: the request as it arrived.
/// let message = HTTPSignatureMessage.request(method: "POST", url: url, headers: fields, body: body)
/// let verified = try verifier.verify(message)
/// ```
public struct HTTPSignatureMessage: Sendable {
    /// The request's method; `nil` for a response.
    public let method: String?
    /// The request's URL (the target URI); `nil` for a response.
    public let url: URL?
    /// The response's status code; `nil` for a request.
    public let statusCode: Int?
    /// The header fields, in order; names compare without case.
    public let headers: [(name: String, value: String)]
    /// The body, when it is known; a covered `Content-Digest` is checked against it.
    public let body: Data?
    private let answered: Answered?

    private final class Answered: Sendable {
        let request: HTTPSignatureMessage
        init(_ request: HTTPSignatureMessage) { self.request = request }
    }

    private init(method: String?, url: URL?, statusCode: Int?, headers: [(name: String, value: String)], body: Data?, request: HTTPSignatureMessage?) {
        self.method = method
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.answered = request.map(Answered.init)
    }

    /// A request.
    public static func request(method: String, url: URL, headers: [(name: String, value: String)], body: Data? = nil) -> HTTPSignatureMessage {
        HTTPSignatureMessage(method: method, url: url, statusCode: nil, headers: headers, body: body, request: nil)
    }

    /// A response, and the request it answers (needed when its signature covers request
    /// components, `;req`).
    public static func response(
        statusCode: Int,
        headers: [(name: String, value: String)],
        body: Data? = nil,
        answering request: HTTPSignatureMessage? = nil
    ) -> HTTPSignatureMessage {
        HTTPSignatureMessage(method: nil, url: nil, statusCode: statusCode, headers: headers, body: body, request: request)
    }

    /// The request a ``SecureSession`` sends (its in-memory body included).
    public init(_ request: SecureRequest) {
        self.init(method: request.method.rawValue, url: request.url, statusCode: nil, headers: request.headers, body: request.body, request: nil)
    }

    /// A response of a ``SecureSession`` (its body included), answering `request`, by default
    /// the request the session sent (``SecureResponse/sentRequest``, its signature fields
    /// included), for a response's signature that covers the request's components (`;req`).
    /// Check a body's `Content-Digest` with the session's decompression off: the digest is of
    /// the content as sent, compressed.
    public init(_ response: SecureResponse, answering request: SecureRequest? = nil) {
        self.init(
            method: nil,
            url: nil,
            statusCode: response.statusCode,
            headers: response.headers,
            body: response.body,
            request: (request ?? response.sentRequest).map { HTTPSignatureMessage($0) }
        )
    }

    /// The request this response answers.
    public var request: HTTPSignatureMessage? { answered?.request }

    /// Whether it is a request.
    public var isRequest: Bool { method != nil }

    /// The values of the field lines named `name`, in order.
    func fieldValues(_ name: String) -> [String] {
        headers.compactMap { $0.name.equalsIgnoringASCIICase(name) ? $0.value : nil }
    }
}
