import CircuitBreaking
import RateLimiting

extension SecureSessionConfiguration {
    /// The optional features, all off by default.
    public struct Features: Sendable {
        /// Answers HTTP authentication challenges for every request without a handler of its own.
        public var challengeHandler: ChallengeHandler?
        /// The credentials the built-in behaviour answers HTTP challenges with.
        public var credentialStore: CredentialStore
        /// Where cookies are kept: the cookies servers set are stored there and sent back with
        /// later requests (and redirects) they apply to. `nil` (the default) keeps none: a
        /// server-side client shares no state between requests unless asked to.
        public var cookieJar: CookieJar?
        /// The known HSTS hosts (RFC 6797): the `Strict-Transport-Security` fields of responses
        /// over trusted TLS are noted there, and `http://` URLs of those hosts, redirects
        /// included, are sent as `https://`. `nil` (the default) keeps none, as curl without
        /// `--hsts`.
        public var hsts: HSTSStore?
        /// Adapts every attempt of a request and decides on retries (a ``RetryPolicy``, a
        /// ``ChainedInterceptor``), unless the request has its own; `nil` (the default): every
        /// request is sent once (a request that fails on a reused keep-alive connection before
        /// any answer is still sent again once, on a new connection).
        public var interceptor: (any RequestInterceptor)?
        /// Stops sending requests for a while to a server that keeps failing (connections
        /// refused, timeouts, 502/503/504 in a row), so that they fail at once with
        /// ``SecureSessionError/circuitOpen(server:failures:lastFailure:retryAfter:)``
        /// (`CircuitBreaker`); `nil` (the default): every request goes.
        public var circuitBreaker: CircuitBreaker?
        /// Keeps the requests to each server under a rate (and, optionally, a number at once),
        /// each waiting for its turn, and pauses a server's requests when it answers 429 or 503
        /// with `Retry-After` (`RequestRateLimiter`); `nil` (the default): requests go as they
        /// come.
        public var rateLimiter: RequestRateLimiter?
        /// Told every request head the session sends, as it sends it (each redirect, retry and
        /// answered challenge its own), with the fields the session added: for debugging tools
        /// and activity logs (`tsec get -v` prints them after `> `). It runs on the task sending
        /// the request, so it must be quick. The head holds credentials (`Authorization`,
        /// `Cookie`) as sent: an observer that logs it should leave them out. `nil` (the
        /// default): none.
        public var requestHeadObserver: (@Sendable (SentRequestHead) -> Void)?

        /// Creates the feature settings; each unnamed one keeps its default (off).
        public init(
            challengeHandler: ChallengeHandler? = nil,
            credentialStore: CredentialStore = CredentialStore(),
            cookieJar: CookieJar? = nil,
            hsts: HSTSStore? = nil,
            interceptor: (any RequestInterceptor)? = nil,
            circuitBreaker: CircuitBreaker? = nil,
            rateLimiter: RequestRateLimiter? = nil,
            requestHeadObserver: (@Sendable (SentRequestHead) -> Void)? = nil
        ) {
            self.challengeHandler = challengeHandler
            self.credentialStore = credentialStore
            self.cookieJar = cookieJar
            self.hsts = hsts
            self.interceptor = interceptor
            self.circuitBreaker = circuitBreaker
            self.rateLimiter = rateLimiter
            self.requestHeadObserver = requestHeadObserver
        }
    }
}
