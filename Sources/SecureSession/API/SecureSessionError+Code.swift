import Foundation
import HTTPMessageSignatures
import TransportSecurity

extension SecureSessionError {
    /// What kind of failure a ``SecureSessionError`` is: compare with `==`, or switch with a
    /// `default` (new kinds may come).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The kind's name in snake case (`trust_rejected`, `timeout`): the `error` dimension of
        /// the session's metrics, few enough values to count by.
        public let name: String

        private init(_ name: String) { self.name = name }

        /// The ``name``.
        public var description: String { name }

        /// The server's certificate was rejected; the decision says which rule and why.
        public static let trustRejected = Code("trust_rejected")
        /// The TLS handshake failed for another reason (protocol, cipher, the server refusing our
        /// client certificate, …).
        public static let tlsFailure = Code("tls_failure")
        /// The connection could not be made or broke.
        public static let connectionFailed = Code("connection_failed")
        /// The HTTP proxy did not open a tunnel to the server (it refused, wanted credentials, or
        /// closed the connection).
        public static let proxyFailure = Code("proxy_failure")
        /// The connection or request took longer than allowed: the limit that ran out, and what
        /// the request was doing then (waiting for a connection, connecting, the TLS handshake,
        /// waiting for the response, reading its body with the bytes received so far), when known.
        public static let timeout = Code("timeout")
        /// The request was cancelled (task cancellation).
        public static let cancelled = Code("cancelled")
        /// A challenge handler cancelled the authentication challenge of this protection space.
        public static let challengeCancelled = Code("challenge_cancelled")
        /// A challenge handler rejected the server-trust protection space: the connection failed.
        public static let protectionSpaceRejected = Code("protection_space_rejected")
        /// The status code is not acceptable; the body came with it.
        public static let unacceptableStatus = Code("unacceptable_status")
        /// The media type is not acceptable.
        public static let unacceptableContentType = Code("unacceptable_content_type")
        /// The response body is longer than the most a request may hold in memory
        /// (``SecureSessionConfiguration/Responses/maximumBodySize`` or the request's own limit).
        public static let responseTooLarge = Code("response_too_large")
        /// More redirects than allowed.
        public static let tooManyRedirects = Code("too_many_redirects")
        /// A redirect from https to http, refused.
        public static let insecureRedirect = Code("insecure_redirect")
        /// A redirect to another origin the session does not follow, and why: it leaves the hosts
        /// whose responses must be signed (``SecureSessionConfiguration/Responses/signatures``), it
        /// would send again a body that carries credentials (``SecureRequest/bodyCarriesCredentials``),
        /// or it answers one of the OAuth client's own exchanges with the authorization server.
        /// Nothing was sent to `to`.
        public static let redirectRefused = Code("redirect_refused")
        /// The URL cannot be requested (no host, unsupported scheme).
        public static let invalidURL = Code("invalid_url")
        /// The request cannot be written as it is (a method or header name that is not an HTTP
        /// token, a header value with a line break; nothing was sent), or the credential answering
        /// its challenge cannot be (a Basic user name with a colon; the request was not sent again).
        public static let invalidRequest = Code("invalid_request")
        /// The server's answer was not valid HTTP.
        public static let invalidResponse = Code("invalid_response")
        /// The response body is not the JSON of the type asked for; the text names the place.
        public static let undecodableResponse = Code("undecodable_response")
        /// The session's transport rules refused the request: cleartext to a host that needs HTTPS
        /// (the reason names the key that would allow it: Apple's -1022), or a server below the
        /// host's TLS requirements.
        public static let refusedByTransportRules = Code("refused_by_transport_rules")
        /// The session was shut down.
        public static let sessionShutDown = Code("session_shut_down")
        /// A download's destination could not be written.
        public static let fileError = Code("file_error")
        /// The file of an upload (``SecureRequest/bodyFile``) could not be read, or changed while
        /// it was sent; or the producer of a ``SecureRequest/bodyStream`` failed, or wrote other
        /// than the length it announced.
        public static let unreadableUpload = Code("unreadable_upload")
        /// Nothing the session's cache keeps may answer the request, which may not use the network
        /// (``RequestCachePolicy/returnCacheDataDontLoad``, or its `Cache-Control: only-if-cached`):
        /// nothing was sent.
        public static let notCached = Code("not_cached")
        /// The response of a host whose responses must be signed
        /// (``SecureSessionConfiguration/Responses/signatures``) carries no signature the verifier
        /// accepts, or its body does not match what the signature covers: nothing of it is the
        /// caller's. Never retried.
        public static let responseSignatureRejected = Code("response_signature_rejected")
        /// The server's circuit is open (``SecureSessionConfiguration/Features/circuitBreaker``): after
        /// `failures` failures in a row, the last one `lastFailure`, requests to `server`
        /// (`https://host:port`) fail at once, and nothing of this one was sent. A trial request may
        /// go after `retryAfter`; zero: one is under way. Not retried by ``RetryPolicy``.
        public static let circuitOpen = Code("circuit_open")
        /// The request's turn to go to `server` under the session's rate limit
        /// (``SecureSessionConfiguration/Features/rateLimiter``) would come in `wait`, after the `timeLeft` of
        /// its time limit: it was not sent. Not retried by ``RetryPolicy``.
        public static let rateLimited = Code("rate_limited")
    }

    /// What kind of failure this is.
    public var code: Code {
        switch reason {
        case .trustRejected: return .trustRejected
        case .tlsFailure: return .tlsFailure
        case .connectionFailed: return .connectionFailed
        case .proxyFailure: return .proxyFailure
        case .timeout: return .timeout
        case .cancelled: return .cancelled
        case .challengeCancelled: return .challengeCancelled
        case .protectionSpaceRejected: return .protectionSpaceRejected
        case .unacceptableStatus: return .unacceptableStatus
        case .unacceptableContentType: return .unacceptableContentType
        case .responseTooLarge: return .responseTooLarge
        case .tooManyRedirects: return .tooManyRedirects
        case .insecureRedirect: return .insecureRedirect
        case .redirectRefused: return .redirectRefused
        case .invalidURL: return .invalidURL
        case .invalidRequest: return .invalidRequest
        case .invalidResponse: return .invalidResponse
        case .undecodableResponse: return .undecodableResponse
        case .refusedByTransportRules: return .refusedByTransportRules
        case .sessionShutDown: return .sessionShutDown
        case .fileError: return .fileError
        case .unreadableUpload: return .unreadableUpload
        case .notCached: return .notCached
        case .responseSignatureRejected: return .responseSignatureRejected
        case .circuitOpen: return .circuitOpen
        case .rateLimited: return .rateLimited
        }
    }

    /// ``Code/name``: the kind's name in snake case (`trust_rejected`, `timeout`).
    public var kind: String { code.name }

    /// The server's certificate was rejected; the decision says which rule and why.
    public static func trustRejected(_ decision: TrustDecision) -> SecureSessionError {
        SecureSessionError(.trustRejected(decision))
    }

    /// The TLS handshake failed for another reason (protocol, cipher, the server refusing our
    /// client certificate, …).
    public static func tlsFailure(_ detail: String, underlying: (any Error & Sendable)? = nil) -> SecureSessionError {
        SecureSessionError(.tlsFailure(detail), underlying: underlying)
    }

    /// The connection could not be made or broke.
    public static func connectionFailed(_ detail: String, underlying: (any Error & Sendable)? = nil) -> SecureSessionError {
        SecureSessionError(.connectionFailed(detail), underlying: underlying)
    }

    /// The HTTP proxy did not open a tunnel to the server (it refused, wanted credentials, or
    /// closed the connection).
    public static func proxyFailure(_ detail: String, underlying: (any Error & Sendable)? = nil) -> SecureSessionError {
        SecureSessionError(.proxyFailure(detail), underlying: underlying)
    }

    /// The connection or request took longer than allowed: the limit that ran out, and what
    /// the request was doing then (waiting for a connection, connecting, the TLS handshake,
    /// waiting for the response, reading its body with the bytes received so far), when known.
    public static func timeout(_ limit: Duration, during stage: String? = nil) -> SecureSessionError {
        SecureSessionError(.timeout(limit, during: stage))
    }

    /// The request was cancelled (task cancellation).
    public static let cancelled = SecureSessionError(.cancelled)

    /// A challenge handler cancelled the authentication challenge of this protection space.
    public static func challengeCancelled(_ space: ProtectionSpace) -> SecureSessionError {
        SecureSessionError(.challengeCancelled(space))
    }

    /// A challenge handler rejected the server-trust protection space: the connection failed.
    public static func protectionSpaceRejected(_ space: ProtectionSpace) -> SecureSessionError {
        SecureSessionError(.protectionSpaceRejected(space))
    }

    /// The status code is not acceptable; the body came with it.
    public static func unacceptableStatus(code: Int, body: Data) -> SecureSessionError {
        SecureSessionError(.unacceptableStatus(code: code, body: body))
    }

    /// The media type is not acceptable.
    public static func unacceptableContentType(_ type: String?, acceptable: Set<String>) -> SecureSessionError {
        SecureSessionError(.unacceptableContentType(type, acceptable: acceptable))
    }

    /// The response body is longer than the most a request may hold in memory
    /// (``SecureSessionConfiguration/Responses/maximumBodySize`` or the request's own limit).
    public static func responseTooLarge(limit: Int) -> SecureSessionError {
        SecureSessionError(.responseTooLarge(limit: limit))
    }

    /// More redirects than allowed.
    public static func tooManyRedirects(_ count: Int) -> SecureSessionError {
        SecureSessionError(.tooManyRedirects(count))
    }

    /// A redirect from https to http, refused.
    public static func insecureRedirect(from: URL, to: URL) -> SecureSessionError {
        SecureSessionError(.insecureRedirect(from: from, to: to))
    }

    /// A redirect to another origin the session does not follow, and why: it leaves the hosts
    /// whose responses must be signed (``SecureSessionConfiguration/Responses/signatures``), it
    /// would send again a body that carries credentials (``SecureRequest/bodyCarriesCredentials``),
    /// or it answers one of the OAuth client's own exchanges with the authorization server.
    /// Nothing was sent to `to`.
    public static func redirectRefused(status: Int, from: URL, to: URL, reason: String) -> SecureSessionError {
        SecureSessionError(.redirectRefused(status: status, from: from, to: to, reason: reason))
    }

    /// The URL cannot be requested (no host, unsupported scheme).
    public static func invalidURL(_ detail: String) -> SecureSessionError {
        SecureSessionError(.invalidURL(detail))
    }

    /// The request cannot be written as it is (a method or header name that is not an HTTP
    /// token, a header value with a line break; nothing was sent), or the credential answering
    /// its challenge cannot be (a Basic user name with a colon; the request was not sent again).
    public static func invalidRequest(_ detail: String) -> SecureSessionError {
        SecureSessionError(.invalidRequest(detail))
    }

    /// The server's answer was not valid HTTP.
    public static func invalidResponse(_ detail: String, underlying: (any Error & Sendable)? = nil) -> SecureSessionError {
        SecureSessionError(.invalidResponse(detail), underlying: underlying)
    }

    /// The response body is not the JSON of the type asked for; the text names the place.
    public static func undecodableResponse(_ detail: String, underlying: (any Error & Sendable)? = nil) -> SecureSessionError {
        SecureSessionError(.undecodableResponse(detail), underlying: underlying)
    }

    /// The session's transport rules refused the request: cleartext to a host that needs HTTPS
    /// (the reason names the key that would allow it: Apple's -1022), or a server below the
    /// host's TLS requirements.
    public static func refusedByTransportRules(host: String, reason: String) -> SecureSessionError {
        SecureSessionError(.refusedByTransportRules(host: host, reason: reason))
    }

    /// The session was shut down.
    public static let sessionShutDown = SecureSessionError(.sessionShutDown)

    /// A download's destination could not be written.
    public static func fileError(_ detail: String, underlying: (any Error & Sendable)? = nil) -> SecureSessionError {
        SecureSessionError(.fileError(detail), underlying: underlying)
    }

    /// The file of an upload (``SecureRequest/bodyFile``) could not be read, or changed while
    /// it was sent; or the producer of a ``SecureRequest/bodyStream`` failed, or wrote other
    /// than the length it announced.
    public static func unreadableUpload(_ detail: String, underlying: (any Error & Sendable)? = nil) -> SecureSessionError {
        SecureSessionError(.unreadableUpload(detail), underlying: underlying)
    }

    /// Nothing the session's cache keeps may answer the request, which may not use the network
    /// (``RequestCachePolicy/returnCacheDataDontLoad``, or its `Cache-Control: only-if-cached`):
    /// nothing was sent.
    public static func notCached(_ url: URL) -> SecureSessionError {
        SecureSessionError(.notCached(url))
    }

    /// The response of a host whose responses must be signed
    /// (``SecureSessionConfiguration/Responses/signatures``) carries no signature the verifier
    /// accepts, or its body does not match what the signature covers: nothing of it is the
    /// caller's. Never retried.
    public static func responseSignatureRejected(statusCode: Int, reason: HTTPSignatureError) -> SecureSessionError {
        SecureSessionError(.responseSignatureRejected(statusCode: statusCode, reason: reason), underlying: reason)
    }

    /// The server's circuit is open (``SecureSessionConfiguration/Features/circuitBreaker``): after
    /// `failures` failures in a row, the last one `lastFailure`, requests to `server`
    /// (`https://host:port`) fail at once, and nothing of this one was sent. A trial request may
    /// go after `retryAfter`; zero: one is under way. Not retried by ``RetryPolicy``.
    public static func circuitOpen(server: String, failures: Int, lastFailure: String, retryAfter: Duration) -> SecureSessionError {
        SecureSessionError(.circuitOpen(server: server, failures: failures, lastFailure: lastFailure, retryAfter: retryAfter))
    }

    /// The request's turn to go to `server` under the session's rate limit
    /// (``SecureSessionConfiguration/Features/rateLimiter``) would come in `wait`, after the `timeLeft` of
    /// its time limit: it was not sent. Not retried by ``RetryPolicy``.
    public static func rateLimited(server: String, wait: Duration, timeLeft: Duration) -> SecureSessionError {
        SecureSessionError(.rateLimited(server: server, wait: wait, timeLeft: timeLeft))
    }
}
