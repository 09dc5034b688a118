import Foundation
import TransportSecurity

/// Fetches issuer certificates from authority-information-access `caIssuers` URLs through a
/// ``SecureSession`` (HTTP GET), for an `IntermediateFetchingEvaluator`: `http` and `https` URLs
/// only, each fetch bounded in time and size, a 2xx answer required. An answer that reads as
/// certificates is kept for a day (issuing CAs' certificates change rarely; the evaluator
/// checks them like any presented certificate), at most ``maximumKeptBytes`` of them.
///
/// ```swift
/// let fetcher = SessionIssuerFetcher(session: SecureSession())   // a session of its own
/// let configuration = SecureSessionConfiguration(
///     tls: .init(trustEvaluator: IntermediateFetchingEvaluator(SecurityPolicy.default, fetcher: fetcher)))
/// ```
///
/// Give it a session of its own: `caIssuers` URLs are usually plain `http`, and the session
/// whose connections are being judged should not fetch what completes them.
public final class SessionIssuerFetcher: IssuerCertificateFetching {
    /// The session that fetches.
    public let session: SecureSession
    /// How long one fetch may take (3 s by default): the fetch happens inside the TLS handshake
    /// of the connection being judged, within its session's ``SecureSessionConfiguration/Timeouts/connect``.
    public let timeout: Duration
    /// The most bytes one answer may have (1 MiB): an issuing CA's certificate, or a PKCS#7
    /// bundle of a few, is a few kilobytes.
    public static let maximumAnswerSize = 1 << 20
    /// How long an answer is kept (a day).
    public static let keptFor: TimeInterval = 86_400
    /// The most bytes of answers kept (4 MiB by default).
    public let maximumKeptBytes: Int
    private let clock: @Sendable () -> Date
    private let kept: FetchedAnswerCache

    /// A fetcher over `session`; each fetch ends after `timeout`; `clock` decides when kept
    /// answers expire (the system's by default); at most `maximumKeptBytes` of answers are kept.
    public init(
        session: SecureSession,
        timeout: Duration = .seconds(3),
        clock: @escaping @Sendable () -> Date = { Date() },
        maximumKeptBytes: Int = 4 << 20
    ) {
        self.session = session
        self.timeout = timeout
        self.clock = clock
        self.maximumKeptBytes = max(0, maximumKeptBytes)
        kept = FetchedAnswerCache(maximumBytes: self.maximumKeptBytes)
    }

    /// How many requests went to the network.
    public var networkFetches: Int { kept.fetches }

    /// The bytes served at `url`, kept or fetched.
    /// - Throws: ``SecureSessionError/invalidURL(_:)`` for a URL that is not `http` or `https`;
    ///   the session's error when the fetch fails, times out, answers other than 2xx or sends
    ///   more than ``maximumAnswerSize``.
    public func issuerCertificates(at url: String) async throws -> [UInt8] {
        let now = clock()
        if let answer = kept.value(for: url, at: now) { return answer }
        guard let target = URL(string: url), let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw SecureSessionError.invalidURL("\(url): issuer certificates are fetched from http and https URLs only")
        }
        kept.countFetch()
        var request = SecureRequest(.get, url: target)
        request.timeout = timeout
        request.maximumResponseBodySize = Self.maximumAnswerSize
        request.validation = .successfulStatus
        let answer = Array(try await session.send(request).body)
        if (try? CertificateLoader.certificates(from: answer, source: url)) != nil {
            kept.keep(answer, for: url, until: now.addingTimeInterval(Self.keptFor), now: now)
        }
        return answer
    }
}
