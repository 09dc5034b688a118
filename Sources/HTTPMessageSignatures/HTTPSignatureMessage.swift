import Foundation
import TransportSecurity

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

    /// A message of its parts: those of a request, or of a response and the request it answers.
    package init(method: String?, url: URL?, statusCode: Int?, headers: [(name: String, value: String)], body: Data?, request: HTTPSignatureMessage?) {
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

    /// The request this response answers.
    public var request: HTTPSignatureMessage? { answered?.request }

    /// Whether it is a request.
    public var isRequest: Bool { method != nil }

    /// The values of the field lines named `name`, in order.
    package func fieldValues(_ name: String) -> [String] {
        headers.compactMap { $0.name.equalsIgnoringASCIICase(name) ? $0.value : nil }
    }
}
