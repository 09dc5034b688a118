#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import SecureSession

/// A swift-openapi-runtime `ClientTransport` over a `SecureSession`: a client made by
/// swift-openapi-generator from a partner's OpenAPI document calls it with the session's trust
/// evaluator and pins, client identity, transport rules, proxies, retries and metrics.
///
/// ```swift
/// let session = SecureSession(configuration: .init(tls: .init(
///     trustEvaluator: PublicKeysTrustEvaluator(pins: [try SPKIPin("sha256/…")]),
///     clientIdentity: try ClientIdentity(pkcs12File: "client.p12", passphrase: passphrase)
/// )))
/// let client = Client(serverURL: try Servers.server1(), transport: SecureSessionTransport(session: session))
/// ```
///
/// Every status reaches the client (the generated code decides what it means); redirects are
/// followed by the session. Request bodies are streamed as the client produces them (a body
/// that can be iterated once cannot be sent again by a 307/308 redirect or a retry: that
/// request fails saying so); response bodies are streamed as they arrive (`SecureSession.bytes(for:)`),
/// the response to a `HEAD` having none. Errors are the session's `SecureSessionError`s
/// (the generated client wraps them in its `ClientError`).
public struct SecureSessionTransport: ClientTransport {
    /// The session requests go through.
    public let session: SecureSession
    /// Each request's timeout; `nil`: the session's `SecureSessionConfiguration.timeouts.request`.
    public var timeout: Duration?

    /// A transport through `session`.
    public init(session: SecureSession, timeout: Duration? = nil) {
        self.session = session
        self.timeout = timeout
    }

    /// Sends `request` to the server at `baseURL`, its path appended to the base URL's.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let sent = try Self.secureRequest(request, body: body, baseURL: baseURL, timeout: timeout)
        let (head, responseBody) = try await session.bytes(for: sent)
        var fields = HTTPFields()
        for field in head.headers {
            guard let name = HTTPField.Name(field.name) else { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
        let response = HTTPResponse(status: .init(code: head.statusCode, reasonPhrase: head.reasonPhrase), headerFields: fields)
        guard request.method != .head else { return (response, nil) }
        let length = head.header("Content-Length").flatMap(Int64.init).map(HTTPBody.Length.known) ?? .unknown
        return (response, HTTPBody(ResponseChunks(body: responseBody), length: length, iterationBehavior: .single))
    }

    /// The session's request for an OpenAPI request: the method, the base URL with the
    /// request's path and query, the header fields, the body streamed; any status accepted.
    static func secureRequest(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, timeout: Duration?) throws -> SecureRequest {
        // The request's path and query read behind a fixed authority: read alone, a path
        // beginning `//` (a template `/{tenant}/items` with an empty tenant) is taken for an
        // authority, and its first segment was dropped (the request went to `/items`' parent).
        let path = request.path ?? "/"
        guard path.hasPrefix("/"), var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false),
            let target = URLComponents(string: "http://path.invalid" + path), target.host == "path.invalid"
        else {
            throw SecureSessionError.invalidURL("the base URL \(baseURL.absoluteString) and the path \(request.path ?? "") do not make a URL")
        }
        components.percentEncodedPath = components.percentEncodedPath.trimmingSuffix("/") + target.percentEncodedPath
        components.percentEncodedQuery = target.percentEncodedQuery
        guard let url = components.url else {
            throw SecureSessionError.invalidURL("the base URL \(baseURL.absoluteString) and the path \(request.path ?? "") do not make a URL")
        }
        var sent = SecureRequest(HTTPMethod(rawValue: request.method.rawValue), url: url, headers: request.headerFields.map { ($0.name.rawName, $0.value) })
        if let body {
            let length: Int64? = if case .known(let count) = body.length { count } else { nil }
            sent.bodyStream = RequestBodyStream(length: length) { writer in
                for try await chunk in body { try await writer.write(Data(chunk)) }
            }
        }
        sent.validation = ResponseValidation.none
        sent.timeout = timeout
        return sent
    }
}

/// A response body's parts as OpenAPI's byte chunks.
private struct ResponseChunks: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk
    let body: ResponseBody

    struct AsyncIterator: AsyncIteratorProtocol {
        var parts: ResponseBody.AsyncIterator
        mutating func next() async throws -> HTTPBody.ByteChunk? {
            try await parts.next().map { ArraySlice($0) }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(parts: body.makeAsyncIterator()) }
}

extension String {
    /// The text without one trailing `suffix`.
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
#endif
