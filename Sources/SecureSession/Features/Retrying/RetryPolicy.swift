import Foundation

/// Tries a request again, with exponential backoff, after an answer or a failure that is worth
/// repeating: a server overloaded or restarting (503, 502, 504, 500), rate limiting (429), a
/// request timeout (408), a connection refused or reset, a timeout. Set it as
/// ``SecureSessionConfiguration/Features/interceptor`` or ``SecureRequest/interceptor``.
///
/// What is never repeated: a request that is not idempotent (`POST`, `PATCH`) once it may have
/// reached the server (it is repeated only when no connection could be made), unless it carries
/// an idempotency key (``SecureRequest/idempotencyKey``, set by ``IdempotencyKeys``); a rejected
/// server certificate, a TLS failure, a refusal by the transport rules, an invalid URL or
/// response (repeating changes nothing, and a security decision is not put to chance twice).
///
/// Delays: the first retry waits ``initialDelay``, each next one ``multiplier`` times longer, at
/// most ``maximumDelay``; ``jitter`` shortens each delay by up to that fraction at random, so that
/// clients turned away together do not come back together. A `Retry-After` field (seconds or an
/// HTTP date) on the answer is obeyed when it asks for longer, and so, without one, are its
/// rate-limit fields (draft-ietf-httpapi-ratelimit-headers: `RateLimit: "default";r=0;t=10`, the
/// longest wait of the quotas with nothing remaining; or `RateLimit-Reset` when
/// `RateLimit-Remaining` is 0 or absent); one asking for more than ``maximumDelay`` ends the
/// retries, and the answer goes to the caller.
///
/// A request that carries an idempotency key is repeated whatever its method, since the server
/// processes it once however often it comes (``retriesRequestsWithIdempotencyKeys``), and after
/// a `409 Conflict` too, the draft's answer while the first request with the key is still being
/// processed (``retryableStatusCodesWithIdempotencyKey``).
public struct RetryPolicy: RequestInterceptor, Hashable {
    /// A kind of failure that may be worth repeating.
    public enum RetryableFailure: Sendable, Hashable, CaseIterable {
        /// The connection could not be made, or broke (``SecureSessionError/connectionFailed(_:underlying:)``).
        case connectionFailure
        /// The attempt took longer than the request timeout (``SecureSessionError/timeout(_:during:)``).
        case timeout
    }

    /// The methods whose requests are repeated after they may have reached the server: the
    /// idempotent ones of RFC 9110 §9.2.2.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, "TRACE"]
    /// The statuses repeated by default: 408, 429, 500, 502, 503, 504 (curl's `--retry`).
    public static let transientStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// The statuses repeated besides ``retryableStatusCodes`` by default for a request that
    /// carries an idempotency key: 409, the answer of draft-ietf-httpapi-idempotency-key-header
    /// (§2.7) and of Stripe while the first request with the same key is still being processed.
    public static let idempotencyKeyConflictStatusCodes: Set<Int> = [409]

    /// The most retries after the first attempt.
    public var maximumRetries: Int
    /// The wait before the first retry.
    public var initialDelay: Duration
    /// How much longer each next wait is than the one before (1: always ``initialDelay``).
    public var multiplier: Double
    /// The longest wait, and the longest `Retry-After` obeyed (a year at most, whatever is set).
    public var maximumDelay: Duration
    /// The fraction (0...1) by which each backoff wait may be shortened at random; 0 waits
    /// exactly.
    public var jitter: Double
    /// Requests of these methods are repeated after they may have reached the server; others
    /// only when no connection could be made.
    public var retryableMethods: Set<HTTPMethod>
    /// The answers repeated.
    public var retryableStatusCodes: Set<Int>
    /// The failures repeated.
    public var retryableFailures: Set<RetryableFailure>
    /// No retry is begun when its wait would end later than this after the first attempt began
    /// (curl's `--retry-max-time`); `nil`: no such bound.
    public var maximumElapsed: Duration?
    /// Whether a `Retry-After` field on a retried answer is obeyed (its rate-limit fields too,
    /// when it has no `Retry-After`).
    public var honorsRetryAfter: Bool
    /// Whether a request that carries an idempotency key (``SecureRequest/idempotencyKey``) is
    /// repeated after it may have reached the server, whatever its method (its server processes
    /// it once). `true` by default.
    public var retriesRequestsWithIdempotencyKeys: Bool
    /// The answers repeated, besides ``retryableStatusCodes``, for a request that carries an
    /// idempotency key (with ``retriesRequestsWithIdempotencyKeys``):
    /// ``idempotencyKeyConflictStatusCodes`` by default. A `422` (the key reused with another
    /// body) is never worth repeating.
    public var retryableStatusCodesWithIdempotencyKey: Set<Int>

    /// Creates a policy. The defaults: two retries, after 0.5 s and 1 s (less up to 20 %), for
    /// idempotent requests and requests with an idempotency key, on the transient statuses,
    /// connection failures and timeouts (and a 409 for a request with a key).
    public init(
        maximumRetries: Int = 2,
        initialDelay: Duration = .milliseconds(500),
        multiplier: Double = 2,
        maximumDelay: Duration = .seconds(30),
        jitter: Double = 0.2,
        retryableMethods: Set<HTTPMethod> = RetryPolicy.idempotentMethods,
        retryableStatusCodes: Set<Int> = RetryPolicy.transientStatusCodes,
        retryableFailures: Set<RetryableFailure> = Set(RetryableFailure.allCases),
        maximumElapsed: Duration? = nil,
        honorsRetryAfter: Bool = true,
        retriesRequestsWithIdempotencyKeys: Bool = true,
        retryableStatusCodesWithIdempotencyKey: Set<Int> = RetryPolicy.idempotencyKeyConflictStatusCodes
    ) {
        self.maximumRetries = maximumRetries
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.retryableMethods = retryableMethods
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableFailures = retryableFailures
        self.maximumElapsed = maximumElapsed
        self.honorsRetryAfter = honorsRetryAfter
        self.retriesRequestsWithIdempotencyKeys = retriesRequestsWithIdempotencyKeys
        self.retryableStatusCodesWithIdempotencyKey = retryableStatusCodesWithIdempotencyKey
    }

    /// Retries as the policy says.
    public func retry(_ request: SecureRequest, after outcome: AttemptOutcome, attempt: RequestAttempt) async -> RetryDecision {
        decision(for: request, after: outcome, attempt: attempt)
    }

    /// The decision for `request` (as the attempt sent it, its idempotency key included) after
    /// `outcome`, with `now` for a `Retry-After` date.
    public func decision(for request: SecureRequest, after outcome: AttemptOutcome, attempt: RequestAttempt, now: Date = Date()) -> RetryDecision {
        decision(for: request.method, keyed: request.idempotencyKey != nil, after: outcome, attempt: attempt, now: now)
    }

    /// The decision for a request of `method` without an idempotency key after `outcome`, with
    /// `now` for a `Retry-After` date.
    public func decision(for method: HTTPMethod, after outcome: AttemptOutcome, attempt: RequestAttempt, now: Date = Date()) -> RetryDecision {
        decision(for: method, keyed: false, after: outcome, attempt: attempt, now: now)
    }

    private func decision(for method: HTTPMethod, keyed: Bool, after outcome: AttemptOutcome, attempt: RequestAttempt, now: Date) -> RetryDecision {
        let repeatable = isRepeatable(outcome, method: method, keyed: keyed && retriesRequestsWithIdempotencyKeys)
        guard attempt.retriesSoFar < maximumRetries, repeatable else { return .doNotRetry }
        var wait = backoff(afterRetries: attempt.retriesSoFar)
        if honorsRetryAfter, case .response(let head) = outcome, let asked = RetryAfter.delay(in: head, now: now) {
            guard asked <= maximumDelay, asked <= .seconds(Int64(Self.longestWaitSeconds)) else { return .doNotRetry }
            wait = max(wait, asked)
        }
        if let maximumElapsed, attempt.elapsed + wait > maximumElapsed { return .doNotRetry }
        return .retry(after: wait)
    }

    /// Whether `outcome` is worth repeating for a request of `method`; `keyed`: it carries an
    /// idempotency key that the policy honours.
    private func isRepeatable(_ outcome: AttemptOutcome, method: HTTPMethod, keyed: Bool) -> Bool {
        let mayRepeatSent = keyed || retryableMethods.contains(method)
        switch outcome {
        case .response(let head):
            let retryable = retryableStatusCodes.contains(head.statusCode) || (keyed && retryableStatusCodesWithIdempotencyKey.contains(head.statusCode))
            return retryable && mayRepeatSent
        case .failure(let error, let requestSent):
            guard let kind = Self.kind(of: error), retryableFailures.contains(kind) else { return false }
            return !requestSent || mayRepeatSent
        }
    }

    private static func kind(of error: SecureSessionError) -> RetryableFailure? {
        switch error.code {
        case .connectionFailed: return .connectionFailure
        case .timeout: return .timeout
        default: return nil
        }
    }

    /// The wait before retry number `retries + 1`: ``initialDelay`` × ``multiplier``^`retries`,
    /// at most ``maximumDelay``, shortened by the jitter.
    func backoff(afterRetries retries: Int) -> Duration {
        let capped = ExponentialBackoff(initial: initialDelay, multiplier: multiplier, maximum: maximumDelay).seconds(afterSteps: retries)
        let shortening = jitter.isFinite ? ExponentialBackoff.clamp(jitter, to: 0...1) : 0
        let seconds = shortening > 0 ? capped * Double.random(in: (1 - shortening)...1) : capped
        // Bounded so that the wait fits a clock, however long the maximum delay.
        return ExponentialBackoff.duration(seconds: seconds, atMost: Self.longestWaitSeconds)
    }

    /// The longest wait a policy asks for: a year (a longer `maximumDelay` changes nothing).
    static let longestWaitSeconds: Double = 365 * 86_400

}
