import Foundation
import Logging
import TransportSecurity
import TransportSecurityNIO

/// An HTTP request for a ``SecureSession``: method, URL (with query items), headers, body, and
/// per-request overrides.
public struct SecureRequest: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The URL (`https://…` or `http://…`).
    public var url: URL
    /// Header fields, in order; names compare case-insensitively.
    public var headers: [(name: String, value: String)]
    /// What the request sends as its body (its content, RFC 9110 §6.4): bytes, a file, parts or
    /// a stream, one of them; `nil` for none. ``body``, ``bodyFile``, ``bodyParts`` and
    /// ``bodyStream`` read and set it as each kind.
    public var content: RequestBody?
    /// How long the whole request may take; `nil` uses the session's. Zero or less fails the
    /// request with ``SecureSessionError/timeout(_:during:)`` before anything is sent.
    public var timeout: Duration?
    /// What responses are acceptable; `nil` uses the session's.
    public var validation: ResponseValidation?
    /// The largest response body held in memory for this request, in bytes; `nil` uses the
    /// session's ``SecureSessionConfiguration/Responses/maximumBodySize``.
    public var maximumResponseBodySize: Int?
    /// Whether redirects are followed (bounded by the session's maximum).
    public var followsRedirects: Bool
    /// Whether the body carries credentials (a password, a client secret, a signed assertion):
    /// a 307 or 308 redirect to another origin, which would send the body there again, is then
    /// refused (``SecureSessionError/redirectRefused(status:from:to:reason:)``), as the
    /// credential fields are never carried to another origin. Redirects that drop the body
    /// (a 303, a 301 or 302 after a POST) and those within the origin are followed. `false` by
    /// default. (The OAuth client's own exchanges with its authorization server follow no
    /// redirect to another origin at all.)
    public var bodyCarriesCredentials: Bool
    /// Answers this request's HTTP authentication challenges before the session's handler.
    public var challengeHandler: ChallengeHandler?
    /// The client certificate and key this request's connections present when a server asks,
    /// instead of the session's (``SecureSessionConfiguration/TLS/clientIdentity`` or
    /// ``SecureSessionConfiguration/TLS/clientIdentityFile``): a platform calling one partner API
    /// for several tenants, each with a certificate of its own. Connections are pooled per
    /// identity, so the requests of one tenant share theirs and never another tenant's. `nil`
    /// (the default): the session's.
    public var clientIdentity: ClientIdentity?
    /// Opt-in: when the connection cannot be made because the host is not reachable (no route,
    /// or the interface is down), wait up to this long for a route to appear, then try once more
    /// (URLSession's `waitsForConnectivity`). Nothing of the request was sent, so any method may
    /// be retried. `nil` (the default) fails at once.
    public var waitsForConnectivity: Duration?
    /// Adapts every attempt of this request and decides on retries (a ``RetryPolicy``), instead
    /// of the session's ``SecureSessionConfiguration/Features/interceptor``.
    public var interceptor: (any RequestInterceptor)?
    /// Where this request logs (its attempts, retries, redirects, cache answers, waits); `nil`
    /// (the default): the session's ``SecureSessionConfiguration/logger``. A request made for a
    /// server's incoming request can log with that request's logger and its metadata.
    public var logger: Logger?
    /// Told how far the body has gone after every part the connection takes (64 KiB; a body in
    /// memory is then sent part by part too, not in one write), from the start again when the
    /// body is sent again. It runs on the task sending the body, so it must be quick.
    public var uploadProgress: (@Sendable (UploadProgress) -> Void)?
    /// How the request uses the session's ``SecureSessionConfiguration/Responses/cache``
    /// (``RequestCachePolicy/useProtocolCachePolicy`` by default).
    public var cachePolicy: RequestCachePolicy
    /// The field that carries this request's idempotency key when it is not one of
    /// ``standardIdempotencyKeyFields`` (PayPal's `PayPal-Request-Id`): see ``idempotencyKey``.
    /// Set by ``setIdempotencyKey(_:field:format:)`` and ``IdempotencyKeys``; `nil` by default.
    public var idempotencyKeyField: String?
    /// Under ``SecureSessionConfiguration/Responses/signatures``: the check of the request's
    /// answer, told each request sent.
    var arrivalCheck: ArrivingResponseCheck?
    /// Whether a redirect to another origin is followed: not for the OAuth client's own
    /// exchanges with the authorization server (``toAuthorizationServer``).
    var followsRedirectsToOtherOrigins = true

    /// Creates a request.
    /// - Parameters:
    ///   - method: The method.
    ///   - url: The URL.
    ///   - queryItems: Added to the URL's query, each name and value percent-encoded (`+`, `&`,
    ///     `=` and `#` included, so a value arrives as given).
    ///   - headers: Header fields.
    ///   - body: The body.
    public init(
        _ method: HTTPMethod = .get,
        url: URL,
        queryItems: [URLQueryItem] = [],
        headers: [(name: String, value: String)] = [],
        body: Data? = nil
    ) {
        self.method = method
        self.url = Self.url(url, appending: queryItems)
        self.headers = headers
        self.content = body.map(RequestBody.data)
        self.timeout = nil
        self.validation = nil
        self.maximumResponseBodySize = nil
        self.followsRedirects = true
        self.bodyCarriesCredentials = false
        self.challengeHandler = nil
        self.clientIdentity = nil
        self.waitsForConnectivity = nil
        self.interceptor = nil
        self.uploadProgress = nil
        self.cachePolicy = .useProtocolCachePolicy
        self.idempotencyKeyField = nil
    }

    /// A request whose body is `value` encoded as JSON, with `Content-Type: application/json`.
    public static func json(
        _ method: HTTPMethod,
        url: URL,
        body value: some Encodable,
        encoder: JSONEncoder = JSONEncoder()
    ) throws -> SecureRequest {
        SecureRequest(method, url: url, headers: [("Content-Type", "application/json")], body: try encoder.encode(value))
    }

    /// A request whose body is `fields` form-encoded (``FormURLEncoding``), with
    /// `Content-Type: application/x-www-form-urlencoded`.
    public static func form(_ method: HTTPMethod = .post, url: URL, fields: [(name: String, value: String)]) -> SecureRequest {
        SecureRequest(method, url: url, headers: [("Content-Type", FormURLEncoding.contentType)], body: FormURLEncoding.encode(fields))
    }

    /// A request whose body is `form` (`multipart/form-data`), with its `Content-Type` and
    /// boundary: in ``body`` when all its parts are in memory, in ``bodyParts`` when it has files
    /// to read as the request is sent.
    public static func multipart(_ method: HTTPMethod = .post, url: URL, form: MultipartForm) -> SecureRequest {
        let (contentType, parts) = form.encodedParts()
        var request = SecureRequest(method, url: url, headers: [("Content-Type", contentType)])
        if case .data(let body) = parts.first?.source, parts.count == 1 {
            request.body = body
        } else {
            request.bodyParts = parts
        }
        return request
    }

    /// A request whose body is the file at `path`, streamed (``bodyFile``), with
    /// `Content-Type: contentType`; a PUT unless said otherwise (curl's `-T`).
    public static func upload(_ method: HTTPMethod = .put, url: URL, fromFile path: String, contentType: String = "application/octet-stream") -> SecureRequest {
        var request = SecureRequest(method, url: url, headers: [("Content-Type", contentType)])
        request.bodyFile = path
        return request
    }

    /// The value of the first header field named `name`, compared without case in ASCII.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}
