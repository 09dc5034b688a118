import CircuitBreaking
import CoreMetrics
import Foundation
import Logging
import RateLimiting
import TransportSecurity
import TransportSecurityNIO

/// How a ``SecureSession`` connects, trusts and validates.
public struct SecureSessionConfiguration: Sendable {
    /// Decides on every server's certificate: a ``SecurityPolicy`` (the default policy unless set),
    /// an evaluator or a ``ServerTrustManager``.
    public var trustEvaluator: AnyServerTrustEvaluator
    /// The URL that paths given as text resolve against (``SecureSession/url(for:)``: the
    /// `get("users/1")` conveniences), as AFHTTPSessionManager's `baseURL`; a path that would
    /// leave it is refused. `nil`: requests name whole URLs.
    public var baseURL: URL?
    /// The certificate and key offered when a server asks for one.
    public var clientIdentity: ClientIdentity?
    /// Files the certificate and key offered are read from, and read again when they change
    /// (a renewed certificate): new connections present the identity they hold at the time, and
    /// connections that presented an earlier one are not reused. Instead of ``clientIdentity``:
    /// with both set, requests fail with ``SecureSessionError/invalidRequest(_:)`` naming both.
    public var clientIdentityFile: ClientIdentityFile?
    /// The store standing for the system's; `nil` reads the machine's.
    public var systemStore: TrustStore?
    /// A fixed evaluation time for certificates (tests); `nil` is the time of each handshake.
    public var evaluationTime: Date?
    /// The public suffix list that bounds certificate wildcards (the one compiled into
    /// TransportSecurity by default; a newer file may be read with
    /// ``TransportSecurity/PublicSuffixList/init(contentsOf:)``), and the insecure SHA-1 switch
    /// (off), for every server and proxy the session judges.
    public var trustEvaluationOptions = TrustEvaluationOptions.default
    /// Where trust decisions are cached; `nil` evaluates every handshake.
    public var decisionCache: DecisionCache?
    /// How long connecting (TCP and TLS handshake) may take. Zero or less allows no connection
    /// (requests fail with ``SecureSessionError/timeout(_:during:)``); a limit beyond 292 years is none.
    public var connectTimeout: Duration
    /// How long a whole request may take, redirects included, unless the request says otherwise.
    /// Zero or less fails every request with ``SecureSessionError/timeout(_:during:)`` before anything
    /// is sent; a limit beyond 292 years is none.
    public var requestTimeout: Duration
    /// The most redirects followed for one request.
    public var maximumRedirects: Int
    /// The most connections open at once to one scheme, host, port, identity and policy.
    public var maximumConnectionsPerHost: Int
    /// How long an idle keep-alive connection (an HTTP/2 connection with no open stream) is kept
    /// for reuse.
    public var idleConnectionTimeout: Duration
    /// The HTTP versions offered: HTTP/2 when a TLS server agrees (``HTTPVersionPolicy/automatic``,
    /// the default), or HTTP/1.1 only.
    public var httpVersions: HTTPVersionPolicy
    /// The largest response body held in memory, in bytes, unless the request says otherwise:
    /// a longer body ends the request with ``SecureSessionError/responseTooLarge(limit:)`` (and
    /// its connection) as soon as it passes the limit, or at once when its `Content-Length` says
    /// so. 64 MiB by default. Bodies that ``SecureSession/download(_:to:continuingPartialFile:progress:)`` streams to a file are
    /// not held in memory and not bounded by it.
    public var maximumResponseBodySize: Int
    /// Which responses are successes, unless the request says otherwise.
    public var validation: ResponseValidation
    /// Where the session logs (never keys or passphrases).
    public var logger: Logger
    /// Answers HTTP authentication challenges for every request without a handler of its own.
    public var challengeHandler: ChallengeHandler?
    /// The credentials the built-in behaviour answers HTTP challenges with.
    public var credentialStore: CredentialStore
    /// The HTTP proxies requests go through (none by default; ``HTTPProxySettings/fromEnvironment(_:)``
    /// reads `HTTPS_PROXY` and its kin).
    public var proxies: HTTPProxySettings
    /// Hosts and ports connected to at a given address instead of through DNS (curl's
    /// `--resolve`); names are still sent and verified as the URL gives them.
    public var addressOverrides: [AddressOverride]
    /// Transport-security rules (ATS keys, `NSPinnedDomains`, pin sets): when set, cleartext is
    /// refused unless a rule allows it, TLS versions and cipher suites follow each host's rule,
    /// and a server the evaluator trusts must also pass its rule's checks. Rules only tighten.
    public var transportRules: TransportSecurityConfiguration?
    /// Where pin-set failures are reported; `nil` makes one when the rules name report URLs.
    public var pinFailureReporter: PinFailureReporter?
    /// Pin sets that can change while the session runs (signed pin updates, SPEC §7): for every
    /// new connection, the set the registry has in force for the host must be satisfied too
    /// (``PinSetEvaluator``). Set it after creating the configuration.
    public var pinSetRegistry: PinSetRegistry?
    /// The certificate-transparency logs trusted where a transport rule requires certificate
    /// transparency (`NSRequiresCertificateTransparency`); without them such hosts are refused.
    /// To require it everywhere, wrap ``trustEvaluator`` in a `CertificateTransparencyEvaluator`.
    public var certificateTransparencyLogs: CTLogList?
    /// Where cookies are kept: the cookies servers set are stored there and sent back with later
    /// requests (and redirects) they apply to. `nil` (the default) keeps none: a server-side
    /// client shares no state between requests unless asked to.
    public var cookieJar: CookieJar?
    /// Whether compressed responses are asked for and decoded (`.disabled` by default: a body
    /// arrives as the server sent it).
    public var decompression: ResponseDecompression
    /// Adapts every attempt of a request and decides on retries (a ``RetryPolicy``, a
    /// ``ChainedInterceptor``), unless the request has its own; `nil` (the default): every
    /// request is sent once (a request that fails on a reused keep-alive connection before any
    /// answer is still sent again once, on a new connection).
    public var interceptor: (any RequestInterceptor)?
    /// The known HSTS hosts (RFC 6797): the `Strict-Transport-Security` fields of responses
    /// over trusted TLS are noted there, and `http://` URLs of those hosts, redirects included,
    /// are sent as `https://`. `nil` (the default) keeps none, as curl without `--hsts`.
    public var hsts: HSTSStore?
    /// Whether large bodies wait for the server's `100 Continue` over HTTP/1.1
    /// (``ExpectContinue``: a Digest challenge or a 413 then costs no upload; a request's own
    /// `Expect: 100-continue` waits too); `nil` (the default): bodies follow their heads at
    /// once, and the connections' pipelines are swift-nio's plain ones.
    public var expectContinue: ExpectContinue?
    /// The lowest TLS version of the session's connections (URLSession's
    /// `tlsMinimumSupportedProtocolVersion`); `nil` (the default): TLS 1.2, or, for a host under a
    /// transport rule, the rule's minimum (`NSExceptionMinimumTLSVersion`). Set, it raises a
    /// rule's minimum, never lowers it. Proxies' TLS connections follow it too.
    public var minimumTLSVersion: TLSProtocolVersion?
    /// The highest TLS version of the session's connections (URLSession's
    /// `tlsMaximumSupportedProtocolVersion`); `nil` (the default): the newest (TLS 1.3). TLS 1.2
    /// lets a server that asks for a client certificate after the handshake do so by
    /// renegotiation, which BoringSSL answers, instead of TLS 1.3's post-handshake
    /// authentication, which it does not (Apache's per-location `SSLVerifyClient`). A minimum
    /// above it fails each request, naming both.
    public var maximumTLSVersion: TLSProtocolVersion?
    /// Told every request head the session sends, as it sends it (each redirect, retry and
    /// answered challenge its own), with the fields the session added: for debugging tools and
    /// activity logs (`tsec get -v` prints them after `> `). It runs on the task sending the
    /// request, so it must be quick. The head holds credentials (`Authorization`, `Cookie`)
    /// as sent: an observer that logs it should leave them out. `nil` (the default): none.
    public var requestHeadObserver: (@Sendable (SentRequestHead) -> Void)?
    /// Where the session's counters and timers go (swift-metrics: requests by status or error,
    /// their durations, trust decisions by rule, connections by protocol); `nil` (the default):
    /// the process's `MetricsSystem`, which counts nothing until it is bootstrapped.
    public var metricsFactory: (any MetricsFactory)?
    /// Where responses are kept to answer later `GET` requests (RFC 9111's private cache, with
    /// each request's ``SecureRequest/cachePolicy``): fresh ones without the network, stale ones
    /// after a `304`. Kept per URL, client identity, trust evaluator, proxy and credentials, so
    /// that no response crosses from one to another. `nil` (the default): nothing is kept, as a
    /// server-side client that calls the same API again usually wants its answer anew.
    public var responseCache: ResponseCache?
    /// The hosts whose responses are accepted only with an HTTP message signature (RFC 9421)
    /// that verifies, covering their body (``ResponseSignatureRequirement``); `nil` (the
    /// default): responses are not looked at for signatures.
    public var responseSignatures: ResponseSignatureRequirement?
    /// Stops sending requests for a while to a server that keeps failing (connections refused,
    /// timeouts, 502/503/504 in a row), so that they fail at once with
    /// ``SecureSessionError/circuitOpen(server:failures:lastFailure:retryAfter:)``
    /// (`CircuitBreaker`); `nil` (the default): every request goes.
    public var circuitBreaker: CircuitBreaker?
    /// Keeps the requests to each server under a rate (and, optionally, a number at once), each
    /// waiting for its turn, and pauses a server's requests when it answers 429 or 503 with
    /// `Retry-After` (`RequestRateLimiter`); `nil` (the default): requests go as they come.
    public var rateLimiter: RequestRateLimiter?

    /// Creates a configuration.
    public init(
        baseURL: URL? = nil,
        trustEvaluator: any ServerTrustEvaluating = SecurityPolicy.default,
        clientIdentity: ClientIdentity? = nil,
        systemStore: TrustStore? = nil,
        evaluationTime: Date? = nil,
        decisionCache: DecisionCache? = .shared,
        connectTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(60),
        maximumRedirects: Int = 10,
        maximumConnectionsPerHost: Int = 6,
        idleConnectionTimeout: Duration = .seconds(60),
        httpVersions: HTTPVersionPolicy = .automatic,
        maximumResponseBodySize: Int = 64 << 20,
        validation: ResponseValidation = .successfulStatus,
        logger: Logger = Logger(label: "SecureSession"),
        challengeHandler: ChallengeHandler? = nil,
        credentialStore: CredentialStore = CredentialStore(),
        proxies: HTTPProxySettings = .none,
        addressOverrides: [AddressOverride] = [],
        transportRules: TransportSecurityConfiguration? = nil,
        pinFailureReporter: PinFailureReporter? = nil,
        cookieJar: CookieJar? = nil,
        decompression: ResponseDecompression = .disabled,
        interceptor: (any RequestInterceptor)? = nil
    ) {
        self.baseURL = baseURL
        self.trustEvaluator = AnyServerTrustEvaluator(trustEvaluator)
        self.clientIdentity = clientIdentity
        self.systemStore = systemStore
        self.evaluationTime = evaluationTime
        self.decisionCache = decisionCache
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maximumRedirects = maximumRedirects
        self.maximumConnectionsPerHost = maximumConnectionsPerHost
        self.idleConnectionTimeout = idleConnectionTimeout
        self.httpVersions = httpVersions
        self.maximumResponseBodySize = maximumResponseBodySize
        self.validation = validation
        self.logger = logger
        self.challengeHandler = challengeHandler
        self.credentialStore = credentialStore
        self.proxies = proxies
        self.addressOverrides = addressOverrides
        self.transportRules = transportRules
        self.pinFailureReporter = pinFailureReporter
        self.cookieJar = cookieJar
        self.decompression = decompression
        self.interceptor = interceptor
    }
}
