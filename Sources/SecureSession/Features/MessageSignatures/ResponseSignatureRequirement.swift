import Foundation
import HTTPMessageSignatures
import TransportSecurity

/// Which responses a session accepts only signed (RFC 9421), and how their signatures are
/// verified: FAPI 2.0 message signing, or any API whose answers must be proven to come from
/// its signing key beyond the TLS connection that carried them (a TLS-terminating gateway, a
/// proxy in between).
///
/// ```swift
/// configuration.responses.signatures = ResponseSignatureRequirement(
///     verifier: HTTPMessageSignatureVerifier(
///         keys: try HTTPSignatureVerificationKey.keys(jwkSet: bankKeys),
///         requiredComponents: [.status, .field("content-digest")]
///     ),
///     hosts: [try HostPattern("api.bank.example")]
/// )
/// ```
///
/// The session verifies the final answer of every request to those hosts, redirects followed,
/// before its status is judged: a signature that does not verify, a body that does not match
/// its covered `Content-Digest`, or no signature at all fails the request with
/// ``SecureSessionError/responseSignatureRejected(statusCode:reason:)``, which is never retried.
/// The verifier sees the response with the request the last attempt sent, so that components
/// with `;req` (the request's own signature, its method and target) can be covered.
///
/// Every answer from those hosts the session acts on is verified first: a redirect is followed,
/// a `401` answered with credentials, and an answer retried by an interceptor (a ``RetryPolicy``,
/// an OAuth token renewed) only once its signature holds; a redirect from those hosts to one
/// not named is refused (``SecureSessionError/redirectRefused(status:from:to:reason:)``).
/// Nothing is taken from an answer before it is verified: its cookies, its HSTS and what the
/// response cache keeps of it wait for the verification (of the body too, for a final answer),
/// so that a refused answer leaves no trace. A kept answer that must be revalidated is asked for
/// whole, before it answers, never by a conditional request (a `304` would confirm it with
/// fields of its own that its signature does not cover); the body of a redirect followed is
/// not kept.
///
/// - ``SecureSession/send(_:)`` (and the helpers built on it) verifies the whole answer before
///   any of it reaches the caller.
/// - ``SecureSession/stream(_:head:into:)`` and ``SecureSession/bytes(for:)`` verify the
///   signature over the head before the first byte is handed over, and the body against its
///   digest as it passes: a body changed on the way has reached the consumer when the call (or
///   the body's iteration) fails at its end, so act on a streamed body only once it ended well.
/// - ``SecureSession/download(_:to:continuingPartialFile:progress:)`` verifies the whole answer
///   before the file is put in place. In a session with a requirement (whatever the host: a
///   redirect may lead to a named one), no download resumes a body with a range (each answer
///   is verified whole) or writes to a device or pipe, and none to a named host continues a
///   partial file (``SecureSessionError/invalidRequest(_:)``): those bytes could not be verified
///   first.
/// - A WebSocket to such a host is refused: its messages carry no signature.
///
/// A response with a body is accepted only when its signature covers `content-digest` and the
/// body matches it (``requiresBodyCoverage``): a signature over the head alone says nothing of
/// the body. A body is checked as it came: with ``SecureSessionConfiguration/Responses/decompression`` enabled, a
/// compressed answer loses its `Content-Encoding` and is decoded, and its check fails; turn
/// decompression off for these hosts' session. A response kept by the session's response cache
/// is verified again each time it answers, under the verifier's `maximumAge`.
public struct ResponseSignatureRequirement: Sendable {
    /// Verifies the responses.
    public var verifier: HTTPMessageSignatureVerifier
    /// The hosts whose responses must be signed; empty: every host.
    public var hosts: [HostPattern]
    /// Whether a response with a body must be signed over it (its signature covering
    /// `content-digest`, which must match the body). `true` unless said otherwise.
    public var requiresBodyCoverage: Bool
    /// Whether the requests to those hosts say what signature is wanted, in an
    /// `Accept-Signature` field (RFC 9421 §5.1, ``acceptSignatureField``), for servers that sign
    /// as asked. `true` unless said otherwise; a request's own `Accept-Signature` is kept.
    public var asksForSignatures: Bool

    /// Requires the responses of `hosts` (every host when empty) to carry a signature `verifier`
    /// accepts, covering the body of those that have one unless `requiresBodyCoverage` is
    /// `false`; the requests ask for it (`Accept-Signature`) unless `asksForSignatures` is `false`.
    public init(verifier: HTTPMessageSignatureVerifier, hosts: [HostPattern] = [], requiresBodyCoverage: Bool = true, asksForSignatures: Bool = true) {
        self.verifier = verifier
        self.hosts = hosts
        self.requiresBodyCoverage = requiresBodyCoverage
        self.asksForSignatures = asksForSignatures
    }

    /// Whether the responses of `url`'s host must be signed.
    public func applies(to url: URL) -> Bool {
        guard !hosts.isEmpty else { return true }
        guard let host = url.host(percentEncoded: false) else { return false }
        return hosts.contains { $0.matches(host) }
    }
}
