import Foundation
import TransportSecurity

/// Fetches OCSP responses (HTTP POST, `application/ocsp-request`) and CRLs (HTTP GET) through a
/// ``SecureSession``, for a `RevocationEvaluator`, and keeps each until its `nextUpdate`: a
/// response carrying a nonce, or without `nextUpdate`, is not kept, and an answer the evaluator
/// could not use (it does not verify, is not current) is dropped when the evaluator says so, so
/// that a forged answer claiming a distant `nextUpdate` is not served again. With the network
/// disabled only what is kept is answered. What is kept is bounded (``maximumKeptBytes``): answers
/// past their `nextUpdate` go when another is kept, then those expiring first, so that a
/// long-running process meeting ever new certificates and CRLs does not grow.
///
/// Give it a session of its own: OCSP and CRL URLs are usually plain `http`, and the session
/// whose connections are being judged should not fetch the answers about itself.
public final class SessionRevocationFetcher: RevocationFetching {
    /// The session that fetches.
    public let session: SecureSession
    /// How long one fetch may take. Revocation is checked during the TLS handshake of the
    /// connection being judged, within that session's ``SecureSessionConfiguration/Timeouts/connect``: a responder that does
    /// not answer must give up well before, so that soft-fail lets the connection through
    /// instead of the connection timing out (Firefox waits 2 s for a soft-fail OCSP answer).
    public let timeout: Duration
    /// The most bytes of answers kept (64 MiB by default); an answer larger than this alone is
    /// not kept.
    public let maximumKeptBytes: Int
    private let clock: @Sendable () -> Date
    private let cache: FetchedAnswerCache

    /// A fetcher over `session`; each fetch ends after `timeout` (3 s by default); `clock`
    /// decides when kept answers expire (the system's by default); at most `maximumKeptBytes`
    /// of answers are kept.
    public init(
        session: SecureSession,
        timeout: Duration = .seconds(3),
        clock: @escaping @Sendable () -> Date = { Date() },
        maximumKeptBytes: Int = 64 << 20
    ) {
        self.session = session
        self.timeout = timeout
        self.clock = clock
        self.maximumKeptBytes = max(0, maximumKeptBytes)
        cache = FetchedAnswerCache(maximumBytes: self.maximumKeptBytes)
    }

    /// How many requests went to the network.
    public var networkFetches: Int { cache.fetches }

    /// How many answers are kept, and their bytes.
    public var kept: (answers: Int, bytes: Int) { cache.size }

    /// Forgets every kept answer.
    public func removeAll() { cache.removeAll() }

    /// An OCSP response, kept or fetched.
    public func ocspResponse(request: [UInt8], responderURL: String, networkAllowed: Bool) async throws -> [UInt8] {
        let key = try Self.ocspKey(request: request, responderURL: responderURL)
        if let kept = cache.value(for: key, at: clock()) { return kept }
        guard networkAllowed else { throw RevocationError("no kept OCSP response and network access is disabled", source: responderURL) }
        guard let url = URL(string: responderURL) else { throw RevocationError("not a URL", source: responderURL) }
        cache.countFetch()
        var ocspRequest = SecureRequest(.post, url: url, headers: [("Content-Type", "application/ocsp-request")], body: Data(request))
        // An OCSP response is a few kilobytes (RFC 6960 responses carry one certificate's status).
        ocspRequest.maximumResponseBodySize = 1 << 20
        ocspRequest.timeout = timeout
        let response = try await session.send(ocspRequest)
        let bytes = Array(response.body)
        if let lifetime = OCSPMessageSummary.lifetime(ofResponse: bytes), !lifetime.hasNonce, let nextUpdate = lifetime.nextUpdate {
            cache.keep(bytes, for: key, until: nextUpdate, now: clock())
        }
        return bytes
    }

    /// A CRL, kept or fetched.
    public func crl(at urlText: String, networkAllowed: Bool) async throws -> [UInt8] {
        let key = Self.crlKey(url: urlText)
        if let kept = cache.value(for: key, at: clock()) { return kept }
        guard networkAllowed else { throw RevocationError("no kept CRL and network access is disabled", source: urlText) }
        guard let url = URL(string: urlText) else { throw RevocationError("not a URL", source: urlText) }
        cache.countFetch()
        var crlRequest = SecureRequest(.get, url: url)
        crlRequest.timeout = timeout
        let bytes = Array(try await session.send(crlRequest).body)
        if let nextUpdate = try CertificateRevocationList(bytes: bytes, source: urlText).nextUpdate {
            cache.keep(bytes, for: key, until: nextUpdate, now: clock())
        }
        return bytes
    }

    /// Drops the response kept for `request`, if any.
    public func discardOCSPResponse(request: [UInt8], responderURL: String) {
        guard let key = try? Self.ocspKey(request: request, responderURL: responderURL) else { return }
        cache.remove(key)
    }

    /// Drops the CRL kept for `url`, if any.
    public func discardCRL(at url: String) {
        cache.remove(Self.crlKey(url: url))
    }

    /// Responses are kept per responder and certificates asked about (the `CertID`s, not the
    /// nonce, which changes with every request).
    private static func ocspKey(request: [UInt8], responderURL: String) throws -> String {
        let ids = try OCSPMessageSummary.certificateIDs(inRequest: request)
        return "ocsp " + responderURL + " " + ids.map { Data($0.derBytes).base64EncodedString() }.joined(separator: ",")
    }

    private static func crlKey(url: String) -> String { "crl " + url }
}
