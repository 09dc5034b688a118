import CoreMetrics
import Foundation
import Logging

/// How a ``SecureSession`` connects, trusts and validates, in groups: ``tls`` (what a server must
/// prove and what the session offers), ``connections``, ``timeouts``, ``responses`` and the
/// optional ``features``.
///
/// ```swift
/// var configuration = SecureSessionConfiguration(
///     tls: .init(trustEvaluator: SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: pins)),
///     timeouts: .init(connect: .seconds(5), request: .seconds(30))
/// )
/// configuration.features.cookieJar = CookieJar()
/// ```
public struct SecureSessionConfiguration: Sendable {
    /// The URL that paths given as text resolve against (``SecureSession/url(for:)``: the
    /// `get("users/1")` conveniences), as AFHTTPSessionManager's `baseURL`; a path that would
    /// leave it is refused. `nil`: requests name whole URLs.
    public var baseURL: URL?
    /// What servers must prove and what the session offers in TLS: the trust evaluator, client
    /// identity, transport rules, pins and TLS versions.
    public var tls: TLS
    /// How connections are made and kept: the pool's bounds, HTTP versions, proxies and
    /// address overrides.
    public var connections: Connections
    /// How long connecting and whole requests may take.
    public var timeouts: Timeouts
    /// What happens to responses: redirects followed, bodies held, which are successes,
    /// decompression, signatures required and the cache.
    public var responses: Responses
    /// The optional features, all off by default: authentication challenges, cookies, HSTS,
    /// retries, the circuit breaker, the rate limiter and a request observer.
    public var features: Features
    /// Where the session logs, at debug and trace levels but for what a caller must act on
    /// (never keys or passphrases); by default nowhere: a library logs only where its caller
    /// asks it to. A request may log elsewhere (``SecureRequest/logger``).
    public var logger: Logger
    /// Where the session's counters and timers go (swift-metrics: requests by status or error,
    /// their durations, trust decisions by rule, connections by protocol); `nil` (the default):
    /// the process's `MetricsSystem`, which counts nothing until it is bootstrapped.
    public var metricsFactory: (any MetricsFactory)?

    /// Creates a configuration from its groups, each with its defaults unless given.
    public init(
        baseURL: URL? = nil,
        tls: TLS = TLS(),
        connections: Connections = Connections(),
        timeouts: Timeouts = Timeouts(),
        responses: Responses = Responses(),
        features: Features = Features(),
        logger: Logger = Logger(label: "SecureSession", factory: SwiftLogNoOpLogHandler.init),
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.baseURL = baseURL
        self.tls = tls
        self.connections = connections
        self.timeouts = timeouts
        self.responses = responses
        self.features = features
        self.logger = logger
        self.metricsFactory = metricsFactory
    }
}
