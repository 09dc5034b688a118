import Foundation
import SecureSession
import Testing

@Suite("Retry policy decisions")
struct RetryPolicyTests {
    private let exact = RetryPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(30), jitter: 0)
    private func first(_ number: Int = 1, elapsed: Duration = .zero) -> RequestAttempt { RequestAttempt(number: number, elapsed: elapsed) }
    private func answer(_ code: Int, _ headers: [(name: String, value: String)] = []) -> AttemptOutcome {
        .response(ResponseHead(statusCode: code, headers: headers))
    }

    @Test("transient statuses of idempotent requests are retried; other statuses and methods are not")
    func statuses() {
        for code in [408, 429, 500, 502, 503, 504] {
            #expect(exact.decision(for: .get, after: answer(code), attempt: first()) == .retry(after: .milliseconds(500)), "\(code)")
        }
        for code in [200, 301, 400, 401, 404, 501] {
            #expect(exact.decision(for: .get, after: answer(code), attempt: first()) == .doNotRetry, "\(code)")
        }
        for method: HTTPMethod in [.head, .put, .delete, .options, "TRACE"] {
            #expect(exact.decision(for: method, after: answer(503), attempt: first()) != .doNotRetry, "\(method)")
        }
        // A POST or PATCH that reached the server is not sent twice.
        #expect(exact.decision(for: .post, after: answer(503), attempt: first()) == .doNotRetry)
        #expect(exact.decision(for: .patch, after: answer(503), attempt: first()) == .doNotRetry)
    }

    @Test("connection failures and timeouts are retried; a POST only when nothing was sent; security failures never")
    func failures() {
        let refused = AttemptOutcome.failure(.connectionFailed("refused"), requestSent: false)
        let reset = AttemptOutcome.failure(.connectionFailed("reset"), requestSent: true)
        let slow = AttemptOutcome.failure(.timeout(.seconds(1)), requestSent: true)
        #expect(exact.decision(for: .get, after: reset, attempt: first()) != .doNotRetry)
        #expect(exact.decision(for: .get, after: slow, attempt: first()) != .doNotRetry)
        #expect(exact.decision(for: .post, after: refused, attempt: first()) != .doNotRetry)
        #expect(exact.decision(for: .post, after: reset, attempt: first()) == .doNotRetry)
        #expect(exact.decision(for: .post, after: slow, attempt: first()) == .doNotRetry)
        let final: [SecureSessionError] = [
            .tlsFailure("handshake"), .proxyFailure("407"), .cancelled, .invalidURL("x"), .invalidResponse("x"),
            .refusedByTransportRules(host: "h", reason: "r"), .sessionShutDown, .responseTooLarge(limit: 1),
        ]
        for error in final {
            #expect(exact.decision(for: .get, after: .failure(error, requestSent: false), attempt: first()) == .doNotRetry, "\(error)")
        }
        var onlyTimeouts = exact
        onlyTimeouts.retryableFailures = [.timeout]
        #expect(onlyTimeouts.decision(for: .get, after: reset, attempt: first()) == .doNotRetry)
        #expect(onlyTimeouts.decision(for: .get, after: slow, attempt: first()) != .doNotRetry)
    }

    @Test("waits grow by the multiplier up to the maximum, and stop after the maximum retries")
    func backoff() {
        var policy = exact
        policy.maximumRetries = 10
        policy.maximumDelay = .seconds(3)
        let waits = (1...6).map { policy.decision(for: .get, after: answer(503), attempt: first($0)) }
        #expect(waits == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(3), .seconds(3), .seconds(3)].map { .retry(after: $0) })
        #expect(exact.decision(for: .get, after: answer(503), attempt: first(2)) == .retry(after: .seconds(1)))
        #expect(exact.decision(for: .get, after: answer(503), attempt: first(3)) == .doNotRetry)
        var never = exact
        never.maximumRetries = 0
        #expect(never.decision(for: .get, after: answer(503), attempt: first()) == .doNotRetry)
        // Jitter only shortens, by at most its fraction.
        let jittered = RetryPolicy(initialDelay: .seconds(1), jitter: 0.5)
        for _ in 0..<200 {
            guard case .retry(let wait) = jittered.decision(for: .get, after: answer(503), attempt: first()) else {
                Issue.record("not retried")
                return
            }
            #expect(wait >= .milliseconds(500) && wait <= .seconds(1))
        }
    }

    @Test("nonsensical settings give bounded waits instead of trapping (a maximum delay without bound trapped converting to nanoseconds)")
    func nonsense() {
        let settings: [RetryPolicy] = [
            RetryPolicy(maximumRetries: 100, multiplier: .nan, jitter: .nan),
            RetryPolicy(maximumRetries: 100, multiplier: .infinity, jitter: -3),
            RetryPolicy(maximumRetries: 100, multiplier: 1e300, jitter: 7),
            RetryPolicy(maximumRetries: 100, initialDelay: .seconds(-5), multiplier: -2),
            RetryPolicy(maximumRetries: 100, maximumDelay: .seconds(Int64.max)),
        ]
        for policy in settings {
            let decision = policy.decision(for: .get, after: answer(503), attempt: first(60))
            guard case .retry(let wait) = decision else {
                Issue.record("not retried: \(decision)")
                continue
            }
            #expect(wait >= .zero && wait <= min(policy.maximumDelay, .seconds(365 * 86_400)))
        }
        // A Retry-After of decades under a maximum delay without bound is not obeyed.
        let unbounded = RetryPolicy(maximumDelay: .seconds(Int64.max), jitter: 0)
        #expect(unbounded.decision(for: .get, after: answer(503, [("Retry-After", "99999999999")]), attempt: first()) == .doNotRetry)
    }

    @Test("Retry-After is obeyed when it asks for longer, in seconds or as an HTTP date; longer than the maximum ends the retries")
    func retryAfter() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func decision(_ value: String, policy: RetryPolicy? = nil) -> RetryDecision {
            (policy ?? exact).decision(for: .get, after: answer(503, [("Retry-After", value)]), attempt: first(), now: now)
        }
        #expect(decision("7") == .retry(after: .seconds(7)))
        #expect(decision("0") == .retry(after: .milliseconds(500)))
        #expect(decision(" 2 ") == .retry(after: .seconds(2)))
        // Fri, 15 Jan 2027 08:00:10 GMT is 10 s after `now`; the same date in RFC 850 and asctime form.
        #expect(decision("Fri, 15 Jan 2027 08:00:10 GMT") == .retry(after: .seconds(10)))
        #expect(decision("Friday, 15-Jan-27 08:00:10 GMT") == .retry(after: .seconds(10)))
        #expect(decision("Fri Jan 15 08:00:10 2027") == .retry(after: .seconds(10)))
        // A date already past, or a value that is neither form: the backoff.
        #expect(decision("Thu, 01 Jan 1970 00:00:00 GMT") == .retry(after: .milliseconds(500)))
        #expect(decision("soon") == .retry(after: .milliseconds(500)))
        #expect(decision("-5") == .retry(after: .milliseconds(500)))
        // Longer than the policy will wait: the answer goes to the caller.
        #expect(decision("31") == .doNotRetry)
        #expect(decision("99999999999999999999999") == .doNotRetry)
        var deaf = exact
        deaf.honorsRetryAfter = false
        #expect(decision("31", policy: deaf) == .retry(after: .milliseconds(500)))
    }

    @Test("no retry is begun whose wait would end past the maximum elapsed time")
    func maximumElapsed() {
        var policy = exact
        policy.maximumElapsed = .seconds(2)
        #expect(policy.decision(for: .get, after: answer(503), attempt: first(1, elapsed: .milliseconds(1400))) == .retry(after: .milliseconds(500)))
        #expect(policy.decision(for: .get, after: answer(503), attempt: first(1, elapsed: .milliseconds(1600))) == .doNotRetry)
    }

    @Test("without Retry-After, a 429's rate-limit fields say how long: RateLimit's exhausted quotas (the longest t), else RateLimit-Reset when nothing remains; Retry-After first")
    func rateLimitFields() {
        func wait(_ headers: [(name: String, value: String)], policy: RetryPolicy? = nil) -> RetryDecision {
            (policy ?? exact).decision(for: .get, after: answer(429, headers), attempt: first())
        }
        #expect(wait([("RateLimit", #""default";r=0;t=7"#)]) == .retry(after: .seconds(7)))
        #expect(wait([("RateLimit", #""burst";r=0;t=3, "daily";r=50;t=86400"#)]) == .retry(after: .seconds(3)))
        #expect(wait([("RateLimit", #""burst";r=0;t=3"#), ("RateLimit", #""hourly";r=0;t=12"#)]) == .retry(after: .seconds(12)))
        // Quotas left, or a field that is no structured list: the backoff.
        #expect(wait([("RateLimit", #""default";r=5;t=10"#)]) == .retry(after: .milliseconds(500)))
        #expect(wait([("RateLimit", "r=0;t=10 ((")]) == .retry(after: .milliseconds(500)))
        #expect(wait([("RateLimit-Reset", "12"), ("RateLimit-Remaining", "0")]) == .retry(after: .seconds(12)))
        #expect(wait([("RateLimit-Reset", "12")]) == .retry(after: .seconds(12)))
        #expect(wait([("RateLimit-Reset", "12"), ("RateLimit-Remaining", "3")]) == .retry(after: .milliseconds(500)))
        #expect(wait([("Retry-After", "2"), ("RateLimit", #""default";r=0;t=20"#)]) == .retry(after: .seconds(2)))
        // Longer than the maximum delay: the answer goes to the caller; not obeyed when told not to.
        #expect(wait([("RateLimit", #""daily";r=0;t=86400"#)]) == .doNotRetry)
        var deaf = exact
        deaf.honorsRetryAfter = false
        #expect(wait([("RateLimit", #""daily";r=0;t=86400"#)], policy: deaf) == .retry(after: .milliseconds(500)))
    }
}
