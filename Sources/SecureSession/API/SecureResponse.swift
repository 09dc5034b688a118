import Foundation
import HTTPMessageSignatures
import TransportSecurity

/// What a ``SecureSession`` received.
public struct SecureResponse: Sendable {
    /// The status code.
    public let statusCode: Int
    /// The reason phrase: swift-nio's standard one for the code (`OK` for 200), not the one the
    /// server wrote (swift-nio's parser keeps no other); empty for a code it does not name. HTTP/2
    /// has none: the standard one too.
    public let reasonPhrase: String
    /// The protocol version of the response: `HTTP/2`, `HTTP/1.1` or `HTTP/1.0`.
    public let httpVersion: String
    /// Header fields, in order.
    public let headers: [(name: String, value: String)]
    /// The body (empty for a download, whose body went to a file).
    public internal(set) var body: Data
    /// The URL that answered (after redirects).
    public let url: URL
    /// The trust decision of the connection that answered (`nil` for cleartext).
    public let trustDecision: TrustDecision?
    /// The TLS version of the connection that answered (URLSession's
    /// `negotiatedTLSProtocolVersion`); `nil` for cleartext.
    public internal(set) var tlsVersion: TLSProtocolVersion? = nil
    /// The redirects followed, in order.
    public let redirects: [URL]
    /// How long the request took, from the first connection attempt to the end of the body
    /// (every attempt and the waits between them included).
    public internal(set) var duration: Duration
    /// How many times the request was sent: 1, plus the retries a ``RequestInterceptor`` asked for.
    public internal(set) var attempts: Int = 1
    /// How long the phases of the exchange that answered took: connect, TLS handshake, waiting
    /// for the server, download.
    public let timing: ResponseTiming
    /// The trailer fields the server sent after the body (HTTP/1.1's chunked trailer section,
    /// HTTP/2's trailing HEADERS: a checksum of a streamed body, gRPC's `grpc-status`), in
    /// order; empty when none came. Never merged into ``headers``: they arrived after the head
    /// was judged (RFC 9110 §6.5). Known once the body has been read: a streamed response's
    /// head handler sees none yet.
    public internal(set) var trailers: [(name: String, value: String)] = []
    /// Where the response came from: the server, or the session's ``ResponseCache`` (as it was
    /// kept, or after the server confirmed it with a `304`).
    public internal(set) var source: ResponseSource = .network
    /// The request this response answers, as the session sent it: after the interceptor's
    /// adaptation (a token, a signature), the redirects followed and the challenges answered;
    /// without the fields the session adds on the wire (`Host`, `Content-Length`, `User-Agent`,
    /// `Connection`, cookies). What a signed response's `;req` components are checked against
    /// (`HTTPSignatureMessage.init`).
    public internal(set) var sentRequest: SecureRequest? = nil

    /// The value of the first trailer field named `name`, compared without case in ASCII.
    public func trailer(_ name: String) -> String? {
        trailers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// The value of the first header field named `name`, compared without case in ASCII.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// The media type of the body, lowercased, without parameters (`application/json`).
    public var mediaType: String? { Self.mediaType(ofContentType: header("Content-Type")) }

    /// The media type a `Content-Type` value names, lowercased, without parameters.
    /// `nil` when the value names none (empty, or only parameters: `; application/json`).
    static func mediaType(ofContentType value: String?) -> String? {
        guard let value, let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first else { return nil }
        let trimmed = type.trimmingHTTPWhitespace
        return trimmed.isEmpty ? nil : trimmed.lowercased()
    }

    /// The body decoded from JSON.
    /// - Throws: ``SecureSessionError/undecodableResponse(_:underlying:)`` naming the type and the place in
    ///   the body that does not fit it (`user.name: expected a string`, `not JSON (unexpected end
    ///   of file during JSON parse)`).
    public func decode<Value: Decodable>(_ type: Value.Type, decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        do {
            return try decoder.decode(type, from: body)
        } catch {
            let reason = DecodingErrorText.describe(error, document: "the body", json: body)
            throw SecureSessionError.undecodableResponse("the body is not the JSON of \(Value.self): \(reason)")
        }
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

extension SecureResponse {
    func with(body: Data) -> SecureResponse {
        var response = self
        response.body = body
        return response
    }
}
