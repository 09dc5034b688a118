import Foundation
import HTTPMessageSignatures
import TransportSecurity

extension SecureSessionError {
    /// The decision that rejected the server (``Code/trustRejected``): which rule and why, the
    /// pins seen and expected.
    public var trustDecision: TrustDecision? {
        if case .trustRejected(let decision) = reason { return decision }
        return nil
    }

    /// The protection space of a challenge the handler cancelled (``Code/challengeCancelled``)
    /// or rejected (``Code/protectionSpaceRejected``).
    public var protectionSpace: ProtectionSpace? {
        switch reason {
        case .challengeCancelled(let space), .protectionSpaceRejected(let space): return space
        default: return nil
        }
    }

    /// The HTTP status of the answer the failure is about: an unacceptable one
    /// (``Code/unacceptableStatus``), a redirect refused (``Code/redirectRefused``), an answer
    /// whose signature does not hold (``Code/responseSignatureRejected``).
    public var statusCode: Int? {
        switch reason {
        case .unacceptableStatus(let code, _): return code
        case .redirectRefused(let status, _, _, _): return status
        case .responseSignatureRejected(let status, _): return status
        default: return nil
        }
    }

    /// The body that came with an unacceptable status (``Code/unacceptableStatus``).
    public var responseBody: Data? {
        if case .unacceptableStatus(_, let body) = reason { return body }
        return nil
    }

    /// What the failure says in its own words: the detail of a TLS, connection, proxy, URL,
    /// request, response, decoding, file or upload failure; why a redirect or the transport rules
    /// refused; what the request was doing when its time ran out; an open circuit's last failure.
    public var detail: String? {
        switch reason {
        case .tlsFailure(let detail), .connectionFailed(let detail), .proxyFailure(let detail), .invalidURL(let detail),
            .invalidRequest(let detail), .invalidResponse(let detail), .undecodableResponse(let detail), .fileError(let detail),
            .unreadableUpload(let detail):
            return detail
        case .redirectRefused(_, _, _, let reason), .refusedByTransportRules(_, let reason): return reason
        case .timeout(_, let stage): return stage
        case .circuitOpen(_, _, let lastFailure, _): return lastFailure
        default: return nil
        }
    }

    /// The time limit that ran out (``Code/timeout``).
    public var timeLimit: Duration? {
        if case .timeout(let limit, _) = reason { return limit }
        return nil
    }

    /// The host whose transport rules refused the request (``Code/refusedByTransportRules``), or
    /// the server (`https://host:port`) whose circuit is open (``Code/circuitOpen``) or whose
    /// rate limit held the request back (``Code/rateLimited``).
    public var server: String? {
        switch reason {
        case .refusedByTransportRules(let host, _): return host
        case .circuitOpen(let server, _, _, _), .rateLimited(let server, _, _): return server
        default: return nil
        }
    }

    /// The redirect not followed: where it came from and where it led
    /// (``Code/insecureRedirect``, ``Code/redirectRefused``). Nothing was sent to `to`.
    public var redirect: (from: URL, to: URL)? {
        switch reason {
        case .insecureRedirect(let from, let to), .redirectRefused(_, let from, let to, _): return (from, to)
        default: return nil
        }
    }

    /// The URL no kept response could answer (``Code/notCached``).
    public var uncachedURL: URL? {
        if case .notCached(let url) = reason { return url }
        return nil
    }

    /// The limit passed: the most bytes held in memory (``Code/responseTooLarge``), the most
    /// redirects followed (``Code/tooManyRedirects``).
    public var limit: Int? {
        switch reason {
        case .responseTooLarge(let limit), .tooManyRedirects(let limit): return limit
        default: return nil
        }
    }

    /// The media type refused and those accepted (``Code/unacceptableContentType``).
    public var contentType: (received: String?, acceptable: Set<String>)? {
        if case .unacceptableContentType(let type, let acceptable) = reason { return (type, acceptable) }
        return nil
    }

    /// Why an answer's HTTP message signature does not hold (``Code/responseSignatureRejected``).
    public var signatureFailure: HTTPSignatureError? {
        if case .responseSignatureRejected(_, let failure) = reason { return failure }
        return nil
    }

    /// How long until a request may go: a trial request through an open circuit (zero: one is
    /// under way; ``Code/circuitOpen``), or the turn the rate limit would give
    /// (``Code/rateLimited``).
    public var retryAfter: Duration? {
        switch reason {
        case .circuitOpen(_, _, _, let retryAfter): return retryAfter
        case .rateLimited(_, let wait, _): return wait
        default: return nil
        }
    }

    /// The failures in a row that opened the circuit (``Code/circuitOpen``).
    public var consecutiveFailures: Int? {
        if case .circuitOpen(_, let failures, _, _) = reason { return failures }
        return nil
    }

    /// The time the request had left when the rate limit held it back (``Code/rateLimited``).
    public var timeLeft: Duration? {
        if case .rateLimited(_, _, let timeLeft) = reason { return timeLeft }
        return nil
    }
}
