import CircuitBreaking
import Foundation
import PKIBuilder
import RateLimiting
import SecureSession
import TestServers
import Testing
import TransportSecurity

@Suite("Request rate limiter")
struct RateLimiterTests {
    let lab = try! TrustLab()

    @Test("requests beyond the burst wait for their turns, one interval apart, and all are answered; over HTTP/1.1 and HTTP/2", arguments: [false, true])
    func spaced(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let limiter = RequestRateLimiter(rate: RequestRate(requests: 5, per: .seconds(1), burst: 2))
        let session = lab.session { $0.features.rateLimiter = limiter }
        let clock = ContinuousClock()
        let started = clock.now
        let finished = try await withThrowingTaskGroup(of: Duration.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    _ = try await session.get(server.url("/hello"))
                    return clock.now - started
                }
            }
            return try await group.reduce(into: [Duration]()) { $0.append($1) }.sorted()
        }
        // Turns at 0, 0, 200, 400, 600 and 800 ms (the burst's two without waiting, though their
        // connections' handshakes may take a while on a busy machine).
        #expect(finished[1] < .milliseconds(600), "\(finished)")
        #expect(finished[5] >= .milliseconds(790), "\(finished)")
        #expect(finished[5] < .seconds(3), "\(finished)")
        #expect(limiter.currentWait(for: server.url("/")) <= .milliseconds(200))
        await session.shutdown()
        await server.stop()
    }

    @Test("a turn after the request's time limit fails at once, nothing sent; a cancelled request gives its turn back; a refusal does not count for a circuit")
    func impatience() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let limiter = RequestRateLimiter(rate: RequestRate(requests: 1, per: .seconds(10), burst: 1))
        let breaker = CircuitBreaker(policy: CircuitBreakerPolicy(failureThreshold: 1))
        let session = lab.session { $0.features.rateLimiter = limiter; $0.features.circuitBreaker = breaker }
        let url = server.url("/flaky?key=i&failures=0")
        #expect(try await session.get(url).statusCode == 200)
        var impatient = SecureRequest(url: url)
        impatient.timeout = .milliseconds(500)
        let clock = ContinuousClock()
        let started = clock.now
        let error = await Result { try await session.send(impatient) }.error
        #expect(clock.now - started < .milliseconds(400))
        guard case .rateLimited(let origin, let wait, let timeLeft)? = error?.sessionFailureReason else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(origin == "https://127.0.0.1:\(server.port)")
        #expect(wait > .seconds(9) && wait <= .seconds(10))
        #expect(timeLeft <= .milliseconds(500))
        #expect("\(error!)".hasPrefix("not sent: its turn to go to \(origin) under the rate limit would come in 9."), "\(error!)")
        #expect((error as? SecureSessionError)?.kind == "rate_limited")
        #expect(server.tally.count("i") == 1)
        #expect(breaker.status(of: url).consecutiveFailures == 0)

        // A patient request reserves the next turn (in about 10 s) and is cancelled: the turn is
        // given back, and the one after it is again about 10 s away, not 20.
        let patient = Task { try await session.get(url) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(limiter.currentWait(for: url) > .seconds(15))
        patient.cancel()
        let cancelled = await patient.result
        guard case .failure(let failure) = cancelled, failure.sessionFailureCode == .cancelled else {
            Issue.record("\(cancelled)")
            return
        }
        #expect(limiter.currentWait(for: url) < .seconds(10))
        #expect(server.tally.count("i") == 1)
        #expect(breaker.status(of: url).consecutiveFailures == 0)
        await session.shutdown()
        await server.stop()
    }

    @Test("a 429 or 503 with Retry-After pauses the server's requests, up to the maximum pause; not when told not to; hosts not named are not limited")
    func pausesWhenAsked() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let fast = RequestRate(requests: 1_000, per: .seconds(1))
        for (status, asked, limiter) in [
            (429, "1", RequestRateLimiter(rate: fast)),
            (503, "3600", RequestRateLimiter(rate: fast, maximumPause: .seconds(2))),
        ] {
            let session = lab.session { $0.features.rateLimiter = limiter }
            let key = "p\(status)"
            var request = SecureRequest(url: server.url("/flaky?key=\(key)&failures=1&status=\(status)&retry-after=\(asked)"))
            request.validation = ResponseValidation.none
            #expect(try await session.send(request).statusCode == status)
            let wait = limiter.currentWait(for: server.url("/"))
            #expect(wait > .milliseconds(700) && wait <= (status == 429 ? .seconds(1) : .seconds(2)), "\(status): \(wait)")
            request.timeout = .milliseconds(300)
            await #expect(throws: SecureSessionError.self) { _ = try await session.send(request) }
            #expect(server.tally.count(key) == 1, "the pause held the request back")
            await session.shutdown()
        }

        let deaf = RequestRateLimiter(rate: fast, pausesWhenAsked: false)
        let session = lab.session { $0.features.rateLimiter = deaf }
        var request = SecureRequest(url: server.url("/flaky?key=d&failures=1&status=429&retry-after=60"))
        request.validation = ResponseValidation.none
        #expect(try await session.send(request).statusCode == 429)
        #expect(deaf.currentWait(for: server.url("/")) < .milliseconds(100))
        await session.shutdown()

        let elsewhere = RequestRateLimiter(rate: RequestRate(requests: 1, per: .seconds(60)), hosts: [try HostPattern("api.partner.example")])
        #expect(!elsewhere.applies(to: "127.0.0.1") && elsewhere.applies(to: "API.partner.example"))
        let unlimited = lab.session { $0.features.rateLimiter = elsewhere }
        let clock = ContinuousClock()
        let started = clock.now
        for _ in 0..<3 { _ = try await unlimited.get(server.url("/hello")) }
        #expect(clock.now - started < .seconds(5))
        #expect(elsewhere.currentWait(for: server.url("/")) == .zero)
        await unlimited.shutdown()
        await server.stop()
    }

    @Test("at most N requests under way to a server, over HTTP/2 too: the others wait in order for one to end; a wait past the time limit times out saying so, a cancelled waiter leaves the queue, and neither counts for a circuit")
    func concurrency() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let limiter = RequestRateLimiter(rate: nil, maximumConcurrentRequests: 2)
        #expect(limiter.maximumConcurrentRequests == 2 && limiter.rate == nil)
        let breaker = CircuitBreaker(policy: CircuitBreakerPolicy(failureThreshold: 1))
        let session = lab.session { $0.features.rateLimiter = limiter; $0.features.circuitBreaker = breaker }
        let clock = ContinuousClock()
        let started = clock.now
        let url = server.url("/delay/400")
        let finishing = (0..<5).map { _ in
            Task {
                _ = try await session.get(url)
                return clock.now - started
            }
        }
        // The first two reach the server; the other three, started with them, queue meanwhile.
        while server.tally.count("/delay") < 2 { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(limiter.concurrency(for: url) == (underWay: 2, waiting: 3))
        var finished: [Duration] = []
        for task in finishing { finished.append(try await task.value) }
        finished.sort()
        // Two at 400 ms, two at 800, one at 1,200 (the two at once shown above).
        #expect(finished[2] >= .milliseconds(790), "\(finished)")
        #expect(finished[4] >= .milliseconds(1_190), "\(finished)")
        #expect(server.http2StreamCount >= 5)
        #expect(limiter.concurrency(for: url) == (underWay: 0, waiting: 0))

        // Two never answered take both slots; one waits past its limit, another is cancelled.
        let holding = (0..<2).map { _ in Task { try await session.get(server.url("/never")) } }
        while server.tally.count("/never") < 2 { try await Task.sleep(for: .milliseconds(10)) }
        var impatient = SecureRequest(url: server.url("/hello"))
        impatient.timeout = .milliseconds(300)
        let waiter = Task { try await session.get(server.url("/hello")) }
        let error = await Result { try await session.send(impatient) }.error
        guard case .timeout(_, let stage)? = error?.sessionFailureReason else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(stage == "waiting for one of the 2 requests under way to https://127.0.0.1:\(server.port) to end (the rate limiter's maximumConcurrentRequests)")
        #expect(limiter.concurrency(for: url) == (underWay: 2, waiting: 1))
        waiter.cancel()
        guard case .failure(let failure) = await waiter.result, failure.sessionFailureCode == .cancelled else {
            Issue.record("the waiter was not cancelled")
            return
        }
        #expect(limiter.concurrency(for: url) == (underWay: 2, waiting: 0))
        for task in holding { task.cancel() }
        for task in holding { _ = await task.result }
        #expect(limiter.concurrency(for: url) == (underWay: 0, waiting: 0))
        #expect(breaker.status(of: url).consecutiveFailures == 0)
        #expect(try await session.get(server.url("/hello")).statusCode == 200)
        await session.shutdown()
        await server.stop()
    }
}
