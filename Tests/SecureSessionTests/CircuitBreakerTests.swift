import CircuitBreaking
import Foundation
import MetricsTestKit
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

@Suite("Circuit breaker")
struct CircuitBreakerTests {
    let lab = try! TrustLab()

    /// Opens after `failures` failures in a row, for `open`.
    static func breaker(failures: Int = 2, open: Duration = .milliseconds(600), trials: Int = 1) -> CircuitBreaker {
        CircuitBreaker(policy: CircuitBreakerPolicy(failureThreshold: failures, openDuration: open, maximumOpenDuration: .seconds(5), trialRequests: trials))
    }

    /// The `circuitOpen` error `error` is, if it is one.
    static func circuitOpen(_ error: any Error) -> (server: String, failures: Int, lastFailure: String, retryAfter: Duration)? {
        guard case .circuitOpen(let server, let failures, let lastFailure, let retryAfter)? = error.sessionFailureReason else { return nil }
        return (server, failures, lastFailure, retryAfter)
    }

    @Test("503s in a row open the circuit: the next request fails at once, nothing sent, naming the server, the failures and the wait; after the open time one trial goes, and its 200 closes the circuit (log and metrics say so); over HTTP/1.1 and HTTP/2", arguments: [false, true])
    func opensAndCloses(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let breaker = Self.breaker()
        let metrics = TestMetrics()
        let session = lab.session { $0.features.circuitBreaker = breaker; $0.metricsFactory = metrics }
        let url = server.url("/flaky?key=o&failures=2")
        for _ in 0..<2 {
            await #expect(throws: SecureSessionError.self) { _ = try await session.get(url) }
        }
        let origin = "https://127.0.0.1:\(server.port)"
        let open = breaker.status(of: url)
        #expect(open.server == origin)
        guard case .open(let until) = open.state else {
            Issue.record("state: \(open)")
            return
        }
        #expect(until > Date() && until < Date() + 1)
        #expect(open.consecutiveFailures == 2 && open.lastFailure == "HTTP 503 Service Unavailable")
        #expect(breaker.statuses() == [open])
        #expect("\(open)".hasPrefix("\(origin): open until "), "\(open)")

        let started = ContinuousClock.now
        let refusal = await Result { try await session.get(url) }.error
        #expect(ContinuousClock.now - started < .milliseconds(300))
        guard let refused = refusal.flatMap(Self.circuitOpen) else {
            Issue.record("not a circuitOpen: \(String(describing: refusal))")
            return
        }
        #expect(refused.server == origin && refused.failures == 2 && refused.lastFailure == "HTTP 503 Service Unavailable")
        #expect(refused.retryAfter > .zero && refused.retryAfter <= .milliseconds(600))
        #expect("\(refusal!)".hasPrefix("not sent: the circuit of \(origin) is open after 2 failures in a row (last: HTTP 503 Service Unavailable); a trial request may go in 0."), "\(refusal!)")
        #expect((refusal as? SecureSessionError)?.kind == "circuit_open")
        #expect(server.tally.count("o") == 2, "nothing was sent while open")
        #expect(metrics.counterTotal(label: "secure_session_requests_total", dimensions: [("method", "GET"), ("error", "circuit_open")]) == 1)
        let gauge = try metrics.expectGauge("secure_session_circuit_open", [("server", origin)])
        #expect(gauge.lastValue == 1)

        try await Task.sleep(for: .milliseconds(700))
        #expect(breaker.status(of: url).state == .halfOpen)
        let trial = try await session.get(url)
        #expect(trial.text == "recovered on request 3, X-Attempt none")
        #expect(breaker.status(of: url) == CircuitStatus(server: origin, state: .closed, consecutiveFailures: 0, lastFailure: nil))
        #expect(breaker.statuses().isEmpty)
        #expect(gauge.lastValue == 0)
        let again = try await session.get(url)
        #expect(again.statusCode == 200 && again.httpVersion == (http2 ? "HTTP/2" : "HTTP/1.1"))
        await session.shutdown()
        await server.stop()
    }

    @Test("refused connections and timeouts count; 500, 404 and a rejected certificate do not; each server has its own circuit")
    func whatCounts() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let impostor = try await HTTPTestServer(chain: lab.loopbackChain(issuedBy: lab.proxyRoot))
        let closed = try await HTTPTestServer(chain: nil)
        let closedPort = closed.port
        await closed.stop()
        let breaker = Self.breaker(failures: 2, open: .seconds(30))
        // The impostor's root is in the lab's system store: the pin on the lab's root refuses it.
        let session = lab.session(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der])) { $0.features.circuitBreaker = breaker }
        let refusedURL = URL(string: "http://127.0.0.1:\(closedPort)/hello")!
        for _ in 0..<2 {
            let error = await Result { try await session.get(refusedURL) }.error
            guard case .connectionFailed? = error?.sessionFailureReason else {
                Issue.record("\(String(describing: error))")
                return
            }
        }
        let refusal = await Result { try await session.get(refusedURL) }.error
        #expect(refusal.flatMap(Self.circuitOpen)?.lastFailure.hasPrefix("connection failed") == true, "\(String(describing: refusal))")
        #expect(refusal.flatMap(Self.circuitOpen)?.server == "http://127.0.0.1:\(closedPort)")

        // Another server of the same host is not affected; answers that show it alive never open it.
        for path in ["/status/500", "/status/404", "/status/500", "/status/404"] {
            let error = await Result { try await session.get(server.url(path)) }.error
            guard case .unacceptableStatus? = error?.sessionFailureReason else {
                Issue.record("\(path): \(String(describing: error))")
                return
            }
        }
        #expect(breaker.status(of: server.url("/")).state == .closed)
        for _ in 0..<3 {
            let error = await Result { try await session.get(impostor.url("/hello")) }.error
            guard case .trustRejected? = error?.sessionFailureReason else {
                Issue.record("\(String(describing: error))")
                return
            }
        }
        #expect(breaker.status(of: impostor.url("/")).state == .closed)
        #expect(breaker.status(of: impostor.url("/")).consecutiveFailures == 0)

        var slow = SecureRequest(url: server.url("/never"))
        slow.timeout = .milliseconds(200)
        for _ in 0..<2 {
            let error = await Result { try await session.send(slow) }.error
            guard case .timeout? = error?.sessionFailureReason else {
                Issue.record("\(String(describing: error))")
                return
            }
        }
        let afterTimeouts = breaker.status(of: server.url("/"))
        #expect(afterTimeouts.lastFailure?.hasPrefix("timed out after 0.2 seconds") == true, "\(afterTimeouts)")
        guard case .open = afterTimeouts.state else {
            Issue.record("\(afterTimeouts)")
            return
        }
        #expect(Set(breaker.statuses().map(\.server)) == ["http://127.0.0.1:\(closedPort)", "https://127.0.0.1:\(server.port)"])
        breaker.reset()
        #expect(breaker.statuses().isEmpty)
        #expect(try await session.get(server.url("/hello")).statusCode == 200)
        await session.shutdown()
        await server.stop()
        await impostor.stop()
    }

    @Test("a timeout spent waiting for the session's own busy connection, and a cancelled request, count for nothing")
    func clientSideWaits() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let breaker = Self.breaker(failures: 1, open: .seconds(30))
        let session = lab.session { $0.features.circuitBreaker = breaker; $0.connections.maximumPerHost = 1; $0.connections.httpVersions = .http1Only }
        let holding = Task { try await session.get(server.url("/never")) }
        while server.tally.count("/never") == 0 { try await Task.sleep(for: .milliseconds(10)) }
        var waiting = SecureRequest(url: server.url("/hello"))
        waiting.timeout = .milliseconds(200)
        let error = await Result { try await session.send(waiting) }.error
        guard case .timeout(_, let stage)? = error?.sessionFailureReason else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(stage?.hasPrefix("waiting for a connection") == true, "\(String(describing: stage))")
        holding.cancel()
        _ = await holding.result
        #expect(breaker.status(of: server.url("/")).consecutiveFailures == 0)
        #expect(breaker.status(of: server.url("/")).state == .closed)
        await session.shutdown()
        await server.stop()
    }

    @Test("half open: one trial goes and the requests meanwhile fail at once saying so; a failed trial opens the circuit for twice as long")
    func oneTrialAtATime() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let breaker = Self.breaker(failures: 1, open: .milliseconds(300))
        let session = lab.session { $0.features.circuitBreaker = breaker }
        await #expect(throws: SecureSessionError.self) { _ = try await session.get(server.url("/flaky?key=t&failures=1&status=502")) }
        try await Task.sleep(for: .milliseconds(400))
        var trial = SecureRequest(url: server.url("/delay/3000"))
        trial.timeout = .milliseconds(1_000)
        let slowTrial = Task { await Result { try await session.send(trial) }.error }
        // Under way once the server has it.
        while server.tally.count("/delay") == 0 { try await Task.sleep(for: .milliseconds(10)) }
        let meanwhile = await Result { try await session.get(server.url("/hello")) }.error
        #expect(meanwhile.flatMap(Self.circuitOpen)?.retryAfter == .zero)
        #expect(meanwhile.map { "\($0)" }?.hasSuffix("a trial request is under way") == true, "\(String(describing: meanwhile))")
        // The trial times out: open again, for 600 ms.
        let trialError = await slowTrial.value
        guard case .timeout? = trialError?.sessionFailureReason else {
            Issue.record("\(String(describing: trialError))")
            return
        }
        let reopened = await Result { try await session.get(server.url("/hello")) }.error
        let wait = reopened.flatMap(Self.circuitOpen)?.retryAfter ?? .zero
        #expect(wait > .milliseconds(300) && wait <= .milliseconds(600), "\(String(describing: reopened))")
        await session.shutdown()
        await server.stop()
    }

    @Test("retries stop at an open circuit: the request fails with circuitOpen, not after every retry; a stale-if-error response answers in place of the refusal, without asking the server")
    func withRetriesAndCache() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let breaker = Self.breaker(failures: 2, open: .seconds(30))
        let retrying = lab.session {
            $0.features.circuitBreaker = breaker
            $0.features.interceptor = RetryPolicy(maximumRetries: 5, initialDelay: .milliseconds(10), jitter: 0)
        }
        let error = await Result { try await retrying.get(server.url("/flaky?key=r&failures=9")) }.error
        #expect(error.flatMap(Self.circuitOpen)?.failures == 2, "\(String(describing: error))")
        #expect(server.tally.count("r") == 2, "two attempts reached the server, the third was refused by the circuit and not retried")
        await retrying.shutdown()

        let cached = lab.session { $0.features.circuitBreaker = Self.breaker(failures: 1, open: .seconds(30)); $0.responses.cache = ResponseCache() }
        let url = server.url("/cached?key=s&cc=max-age=60,stale-if-error=100&age=100&fail-after=1")
        #expect(try await cached.get(url).source == .network)
        #expect(try await cached.get(url).source == .staleAfterFailure(reason: "HTTP 503 Service Unavailable"))
        let answered = try await cached.get(url)
        guard case .staleAfterFailure(let reason) = answered.source else {
            Issue.record("\(answered.source)")
            return
        }
        #expect(reason.hasPrefix("not sent: the circuit of https://127.0.0.1:\(server.port) is open"), "\(reason)")
        #expect(answered.text == "body 1 of s")
        #expect(server.tally.count("s") == 2)
        await cached.shutdown()
        await server.stop()
    }
}
