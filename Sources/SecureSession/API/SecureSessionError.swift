import CircuitBreaking
import Foundation
import HTTPMessageSignatures
import TransportSecurity

/// Why a ``SecureSession`` request failed.
///
/// ``code`` tells apart what went wrong, so that a caller (and `tsec get`'s exit status) can
/// react: a rejected server is not a network failure. It is a struct, not an enum, so that new
/// kinds of failure can come without breaking a caller's `switch`: compare codes
/// (`error.code == .trustRejected`), or switch over them with a `default`. What a failure
/// carries is read through its properties (``trustDecision``, ``statusCode``, ``detail``, …),
/// and the error it comes from, where there is one, through ``underlying``.
///
/// ```swift
/// do {
///     _ = try await session.get(url)
/// } catch let error as SecureSessionError where error.code == .trustRejected {
///     print(error.trustDecision?.pinMismatch?.description ?? "\(error)")
/// }
/// ```
public struct SecureSessionError: Error, Sendable, CustomStringConvertible {
    /// What failed, with what the failure carries; within the package only.
    package let reason: Reason
    /// The error this failure comes from, when there is one (a decoding error, a message
    /// signature's failure, a file system error).
    public let underlying: (any Error & Sendable)?

    /// A failure for `reason`, coming from `underlying` when given.
    package init(_ reason: Reason, underlying: (any Error & Sendable)? = nil) {
        self.reason = reason
        self.underlying = underlying
    }

    /// A sentence saying what went wrong. Control and bidirectional formatting characters are
    /// written escaped (`\u{1B}`): much of what an error says comes from the server (a content
    /// type, the part of a body a parser quotes), and an error is printed and logged, where an
    /// escape sequence or a right-to-left override would act on the terminal or forge the text.
    public var description: String { reason.sentence.escapingControlCharacters }

    /// The failures, with what each carries (the kinds ``Code`` names).
    package enum Reason: Sendable {
        /// The server's certificate was rejected; the decision says which rule and why.
        case trustRejected(TrustDecision)
        /// The TLS handshake failed for another reason (protocol, cipher, the server refusing our
        /// client certificate, …).
        case tlsFailure(String)
        /// The connection could not be made or broke.
        case connectionFailed(String)
        /// The HTTP proxy did not open a tunnel to the server (it refused, wanted credentials, or
        /// closed the connection).
        case proxyFailure(String)
        /// The connection or request took longer than allowed: the limit that ran out, and what
        /// the request was doing then (waiting for a connection, connecting, the TLS handshake,
        /// waiting for the response, reading its body with the bytes received so far), when known.
        case timeout(Duration, during: String? = nil)
        /// The request was cancelled (task cancellation).
        case cancelled
        /// A challenge handler cancelled the authentication challenge of this protection space.
        case challengeCancelled(ProtectionSpace)
        /// A challenge handler rejected the server-trust protection space: the connection failed.
        case protectionSpaceRejected(ProtectionSpace)
        /// The status code is not acceptable; the body came with it.
        case unacceptableStatus(code: Int, body: Data)
        /// The media type is not acceptable.
        case unacceptableContentType(String?, acceptable: Set<String>)
        /// The response body is longer than the most a request may hold in memory
        /// (``SecureSessionConfiguration/Responses/maximumBodySize`` or the request's own limit).
        case responseTooLarge(limit: Int)
        /// More redirects than allowed.
        case tooManyRedirects(Int)
        /// A redirect from https to http, refused.
        case insecureRedirect(from: URL, to: URL)
        /// A redirect to another origin the session does not follow, and why: it leaves the hosts
        /// whose responses must be signed (``SecureSessionConfiguration/Responses/signatures``), it
        /// would send again a body that carries credentials (``SecureRequest/bodyCarriesCredentials``),
        /// or it answers one of the OAuth client's own exchanges with the authorization server.
        /// Nothing was sent to `to`.
        case redirectRefused(status: Int, from: URL, to: URL, reason: String)
        /// The URL cannot be requested (no host, unsupported scheme).
        case invalidURL(String)
        /// The request cannot be written as it is (a method or header name that is not an HTTP
        /// token, a header value with a line break; nothing was sent), or the credential answering
        /// its challenge cannot be (a Basic user name with a colon; the request was not sent again).
        case invalidRequest(String)
        /// The server's answer was not valid HTTP.
        case invalidResponse(String)
        /// The response body is not the JSON of the type asked for; the text names the place.
        case undecodableResponse(String)
        /// The session's transport rules refused the request: cleartext to a host that needs HTTPS
        /// (the reason names the key that would allow it: Apple's -1022), or a server below the
        /// host's TLS requirements.
        case refusedByTransportRules(host: String, reason: String)
        /// The session was shut down.
        case sessionShutDown
        /// A download's destination could not be written.
        case fileError(String)
        /// The file of an upload (``SecureRequest/bodyFile``) could not be read, or changed while
        /// it was sent; or the producer of a ``SecureRequest/bodyStream`` failed, or wrote other
        /// than the length it announced.
        case unreadableUpload(String)
        /// Nothing the session's cache keeps may answer the request, which may not use the network
        /// (``RequestCachePolicy/returnCacheDataDontLoad``, or its `Cache-Control: only-if-cached`):
        /// nothing was sent.
        case notCached(URL)
        /// The response of a host whose responses must be signed
        /// (``SecureSessionConfiguration/Responses/signatures``) carries no signature the verifier
        /// accepts, or its body does not match what the signature covers: nothing of it is the
        /// caller's. Never retried.
        case responseSignatureRejected(statusCode: Int, reason: HTTPSignatureError)
        /// The server's circuit is open (``SecureSessionConfiguration/Features/circuitBreaker``): after
        /// `failures` failures in a row, the last one `lastFailure`, requests to `server`
        /// (`https://host:port`) fail at once, and nothing of this one was sent. A trial request may
        /// go after `retryAfter`; zero: one is under way. Not retried by ``RetryPolicy``.
        case circuitOpen(server: String, failures: Int, lastFailure: String, retryAfter: Duration)
        /// The request's turn to go to `server` under the session's rate limit
        /// (``SecureSessionConfiguration/Features/rateLimiter``) would come in `wait`, after the `timeLeft` of
        /// its time limit: it was not sent. Not retried by ``RetryPolicy``.
        case rateLimited(server: String, wait: Duration, timeLeft: Duration)

        /// What went wrong, in a sentence (control characters not yet escaped).
        var sentence: String {
            switch self {
            case .trustRejected(let decision): return "the server's certificate was rejected: \(decision.reason) [\(decision.decidedBy)]"
            case .tlsFailure(let detail): return "TLS handshake failed: \(detail)"
            case .connectionFailed(let detail): return "connection failed: \(detail)"
            case .proxyFailure(let detail): return "proxy failure: \(detail)"
            case .timeout(let duration, let stage): return "timed out after \(duration)" + (stage.map { " while \($0)" } ?? "")
            case .cancelled: return "the request was cancelled"
            case .challengeCancelled(let space): return "the authentication challenge of \(space) was cancelled"
            case .protectionSpaceRejected(let space): return "the protection space \(space) was rejected by the challenge handler"
            case .unacceptableStatus(let code, _): return "unacceptable HTTP status \(code)"
            case .unacceptableContentType(let type, let acceptable):
                return "unacceptable content type \(type ?? "(none)"); expected \(acceptable.sorted().joined(separator: ", "))"
            case .responseTooLarge(let limit):
                return "the response body is longer than \(limit) bytes, the most held in memory (maximumResponseBodySize); raise it or download to a file"
            case .tooManyRedirects(let count): return "more than \(count) redirects"
            case .insecureRedirect(let from, let to): return "refused the redirect from \(from.redacted) to \(to.redacted): https must not downgrade to http"
            case .redirectRefused(let status, let from, let to, let reason):
                return "refused the \(status) redirect from \(from.redacted) to \(to.redacted): \(reason)"
            case .invalidURL(let detail): return "invalid URL: \(detail)"
            case .invalidRequest(let detail): return "invalid request: \(detail)"
            case .invalidResponse(let detail): return "invalid HTTP response: \(detail)"
            case .undecodableResponse(let detail): return "cannot decode the response: \(detail)"
            case .refusedByTransportRules(let host, let reason): return "refused by the transport rules for \(host): \(reason)"
            case .sessionShutDown: return "the session is shut down"
            case .fileError(let detail): return "cannot write the download: \(detail)"
            case .unreadableUpload(let detail): return "cannot send the upload file: \(detail)"
            case .notCached(let url):
                return "no response kept in the cache may answer \(url.redacted), and the request may not use the network (returnCacheDataDontLoad or only-if-cached)"
            case .responseSignatureRejected(let status, let reason):
                return "the response (status \(status)) was refused: its HTTP message signature does not hold: \(reason)"
            case .circuitOpen(let server, let failures, let lastFailure, let retryAfter):
                return CircuitOpen(server: server, failures: failures, lastFailure: lastFailure, retryAfter: retryAfter).description
            case .rateLimited(let server, let wait, let timeLeft):
                return "not sent: its turn to go to \(server) under the rate limit would come in \(wait.formattedSeconds), after the \(timeLeft.formattedSeconds) left of its time limit"
            }
        }
    }
}

extension Error {
    /// What a ``SecureSessionError`` failed for, `nil` for another error: the package's own code
    /// and tests match on it (`case .trustRejected(let decision)? = error.sessionFailureReason`).
    package var sessionFailureReason: SecureSessionError.Reason? { (self as? SecureSessionError)?.reason }

    /// The ``SecureSessionError/code`` of a ``SecureSessionError``, `nil` for another error.
    package var sessionFailureCode: SecureSessionError.Code? { (self as? SecureSessionError)?.code }
}
