import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

/// Records every attempt it adapts (the request as given to it, and the attempt), adds the
/// attempt's number as `X-Attempt`, and leaves the decision to `policy`.
private final class RecordingInterceptor: RequestInterceptor, @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [(request: SecureRequest, attempt: RequestAttempt)] = []
    private var outcomes: [AttemptOutcome] = []
    let policy: RetryPolicy

    init(_ policy: RetryPolicy) { self.policy = policy }

    func adapt(_ request: SecureRequest, attempt: RequestAttempt) async throws -> SecureRequest {
        lock.withLock { seen.append((request, attempt)) }
        var adapted = request
        adapted.headers.append((name: "X-Attempt", value: String(attempt.number)))
        return adapted
    }

    func retry(_ request: SecureRequest, after outcome: AttemptOutcome, attempt: RequestAttempt) async -> RetryDecision {
        lock.withLock { outcomes.append(outcome) }
        return await policy.retry(request, after: outcome, attempt: attempt)
    }

    var attempts: [RequestAttempt] { lock.withLock { seen.map(\.attempt) } }
    var requestsGiven: [SecureRequest] { lock.withLock { seen.map(\.request) } }
    var judged: [AttemptOutcome] { lock.withLock { outcomes } }
}

@Suite("Retries and request interceptors")
struct RetryTests {
    let lab = try! TrustLab()
    /// Quick retries: 10 ms, 20 ms, … without jitter.
    static let quick = RetryPolicy(maximumRetries: 3, initialDelay: .milliseconds(10), jitter: 0)

    private func session(_ interceptor: (any RequestInterceptor)?) -> SecureSession {
        lab.session { $0.features.interceptor = interceptor }
    }

    private static func flaky(_ server: HTTPTestServer, _ query: String) -> (url: URL, key: String) {
        let key = UUID().uuidString
        return (server.url("/flaky?key=\(key)&\(query)"), key)
    }

    @Test("a 503 answered twice, then a 200: the caller gets the 200 after three attempts, and never the 503s' bodies")
    func transientStatus() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let interceptor = RecordingInterceptor(Self.quick)
        let session = session(interceptor)
        defer { Task { await session.shutdown() } }
        let (url, key) = Self.flaky(server, "failures=2")
        let response = try await session.get(url)
        #expect(response.statusCode == 200)
        #expect(response.text == "recovered on request 3, X-Attempt 3")
        #expect(response.attempts == 3)
        #expect(server.tally.count(key) == 3)
        #expect(interceptor.attempts.map(\.number) == [1, 2, 3])
        #expect(interceptor.judged.map(\.statusCode) == [503, 503, 200])
        // Each attempt is adapted from the caller's request, not from the previous adaptation.
        #expect(interceptor.requestsGiven.allSatisfy { !$0.headers.contains { $0.name == "X-Attempt" } })
        #expect(interceptor.attempts[2].elapsed >= .milliseconds(30))

        // Streamed and downloaded bodies: only the answer that is kept reaches the caller.
        let streamed = Self.flaky(server, "failures=1")
        let parts = PartsBox()
        let head = try await session.stream(SecureRequest(url: streamed.url)) { parts.append($0) }
        #expect(head.attempts == 2)
        #expect(String(decoding: parts.all, as: UTF8.self) == "recovered on request 2, X-Attempt 2")
        let directory = NSTemporaryDirectory() + "tsec-retry-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let downloaded = Self.flaky(server, "failures=1&status=502")
        _ = try await session.download(SecureRequest(url: downloaded.url), to: directory + "/body")
        #expect(try String(contentsOfFile: directory + "/body", encoding: .utf8) == "recovered on request 2, X-Attempt 2")
    }

    @Test("over HTTP/2, a retried answer's stream is read and dropped and the next attempt shares the connection")
    func http2() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        defer { Task { await server.stop() } }
        let session = session(Self.quick)
        defer { Task { await session.shutdown() } }
        let (url, key) = Self.flaky(server, "failures=2&status=504")
        let response = try await session.get(url)
        #expect(response.httpVersion == "HTTP/2")
        #expect(response.text == "recovered on request 3, X-Attempt none")
        #expect(server.tally.count(key) == 3)
        #expect(server.connections.total == 1)
    }

    @Test("when the retries run out, the last answer is the caller's, with its body")
    func exhausted() async throws {
        let server = try await HTTPTestServer(chain: nil)
        defer { Task { await server.stop() } }
        let session = session(Self.quick)
        defer { Task { await session.shutdown() } }
        let (url, key) = Self.flaky(server, "failures=9&status=429")
        await #expect {
            try await session.get(url)
        } throws: { error in
            guard case .unacceptableStatus(429, let body)? = error.sessionFailureReason else { return false }
            return String(decoding: body, as: UTF8.self) == "failure on request 4"
        }
        #expect(server.tally.count(key) == 4)
    }

    @Test("a POST that reached the server is not sent again; without an interceptor nothing is retried")
    func notIdempotent() async throws {
        let server = try await HTTPTestServer(chain: nil)
        defer { Task { await server.stop() } }
        let session = session(Self.quick)
        defer { Task { await session.shutdown() } }
        let (url, key) = Self.flaky(server, "failures=1")
        await #expect(throws: SecureSessionError.self) { try await session.post(url, body: Data("order".utf8)) }
        #expect(server.tally.count(key) == 1)

        // The POST's own policy may allow it.
        var request = SecureRequest(.post, url: Self.flaky(server, "failures=1").url, body: Data("order".utf8))
        var allowing = Self.quick
        allowing.retryableMethods.insert(.post)
        request.interceptor = allowing
        #expect(try await session.send(request).attempts == 2)

        let plain = lab.session()
        defer { Task { await plain.shutdown() } }
        let once = Self.flaky(server, "failures=1")
        await #expect(throws: SecureSessionError.self) { try await plain.get(once.url) }
        #expect(server.tally.count(once.key) == 1)
    }

    @Test("a connection that could not be made is retried for any method: nothing was sent")
    func refusedConnection() async throws {
        let interceptor = RecordingInterceptor(Self.quick)
        let session = session(interceptor)
        defer { Task { await session.shutdown() } }
        await #expect {
            try await session.post(URL(string: "http://127.0.0.1:1/orders")!, body: Data("order".utf8))
        } throws: { error in
            guard case .connectionFailed? = error.sessionFailureReason else { return false }
            return true
        }
        #expect(interceptor.attempts.count == 4)
        #expect(interceptor.judged.allSatisfy {
            if case .failure(let failure, requestSent: false) = $0 { failure.code == .connectionFailed } else { false }
        })
    }

    @Test("a connection closed unanswered, and a body cut short, are retried for a GET held in memory or written to a file")
    func brokenAnswers() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let session = session(Self.quick)
        defer { Task { await session.shutdown() } }
        let dropped = Self.flaky(server, "failures=2&drop=1")
        #expect(try await session.get(dropped.url).text == "recovered on request 3, X-Attempt none")

        let cut = Self.flaky(server, "failures=1&cut=1")
        let whole = try await session.get(cut.url)
        #expect(whole.text == "recovered on request 2, X-Attempt none")
        #expect(whole.attempts == 2)

        let directory = NSTemporaryDirectory() + "tsec-retry-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cutDownload = Self.flaky(server, "failures=1&cut=1")
        let progress = ProgressBox()
        _ = try await session.download(SecureRequest(url: cutDownload.url), to: directory + "/body") { progress.append($0.bytesReceived) }
        #expect(try String(contentsOfFile: directory + "/body", encoding: .utf8) == "recovered on request 2, X-Attempt none")
        #expect(progress.all.last == 38)
    }

    @Test("a streamed body cut short is not retried: what the consumer had cannot be taken back")
    func streamedBodyIsFinal() async throws {
        let server = try await HTTPTestServer(chain: nil)
        defer { Task { await server.stop() } }
        let session = session(Self.quick)
        defer { Task { await session.shutdown() } }
        let (url, key) = Self.flaky(server, "failures=1&cut=1")
        let parts = PartsBox()
        await #expect(throws: SecureSessionError.self) {
            try await session.stream(SecureRequest(url: url)) { parts.append($0) }
        }
        #expect(String(decoding: parts.all, as: UTF8.self) == "partial...")
        #expect(server.tally.count(key) == 1)
    }

    @Test("Retry-After is waited for; each attempt has the whole request timeout")
    func retryAfterAndTimeouts() async throws {
        let server = try await HTTPTestServer(chain: nil)
        defer { Task { await server.stop() } }
        let session = session(Self.quick)
        defer { Task { await session.shutdown() } }
        let (url, _) = Self.flaky(server, "failures=1&retry-after=1")
        let started = ContinuousClock.now
        let response = try await session.get(url)
        #expect(response.attempts == 2)
        #expect(ContinuousClock.now - started >= .seconds(1))
        #expect(response.duration >= .seconds(1))

        // Three attempts of 300 ms each, all timing out: the request took them all.
        var request = SecureRequest(url: server.url("/never"))
        request.timeout = .milliseconds(300)
        request.interceptor = RetryPolicy(maximumRetries: 2, initialDelay: .zero, jitter: 0)
        let begun = ContinuousClock.now
        await #expect {
            try await session.send(request)
        } throws: { error in
            guard case .timeout? = error.sessionFailureReason else { return false }
            return true
        }
        #expect(ContinuousClock.now - begun >= .milliseconds(900))
    }

    @Test("cancelling the task ends the wait between attempts at once")
    func cancelledWait() async throws {
        let server = try await HTTPTestServer(chain: nil)
        defer { Task { await server.stop() } }
        let session = session(RetryPolicy(initialDelay: .seconds(30), jitter: 0))
        defer { Task { await session.shutdown() } }
        let (url, key) = Self.flaky(server, "failures=1")
        let request = Task { try await session.get(url) }
        while server.tally.count(key) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        let started = ContinuousClock.now
        request.cancel()
        await #expect {
            try await request.value
        } throws: { error in
            guard case .cancelled? = error.sessionFailureReason else { return false }
            return true
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(server.tally.count(key) == 1)
    }

    @Test("a rejected server certificate is never retried")
    func trustRejection() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(issuedBy: lab.rogueRoot))
        defer { Task { await server.stop() } }
        let interceptor = RecordingInterceptor(Self.quick)
        let session = session(interceptor)
        defer { Task { await session.shutdown() } }
        await #expect {
            try await session.get(server.url("/hello"))
        } throws: { error in
            guard case .trustRejected? = error.sessionFailureReason else { return false }
            return true
        }
        #expect(interceptor.attempts.count == 1)
        #expect(server.connections.total == 1)
    }

    @Test("deciding on a complete answer, an interceptor may refresh a token through the same session, even with one connection per host")
    func refreshThroughTheSession() async throws {
        /// Sends `X-Attempt: <token>`; after a 503 fetches a new token from `/hello` first.
        final class Refreshing: RequestInterceptor, @unchecked Sendable {
            let lock = NSLock()
            var token = "stale"
            let tokenURL: URL
            var session: SecureSession?
            init(tokenURL: URL) { self.tokenURL = tokenURL }
            func adapt(_ request: SecureRequest, attempt: RequestAttempt) async throws -> SecureRequest {
                var request = request
                request.headers.append((name: "X-Attempt", value: lock.withLock { token }))
                return request
            }
            func retry(_ request: SecureRequest, after outcome: AttemptOutcome, attempt: RequestAttempt) async -> RetryDecision {
                guard outcome.statusCode == 503, attempt.number == 1, let session = lock.withLock({ session }) else { return .doNotRetry }
                var refresh = SecureRequest(url: tokenURL)
                refresh.interceptor = RequestAdapter { request, _ in request }
                guard let fresh = try? await session.send(refresh).text else { return .doNotRetry }
                lock.withLock { token = fresh }
                return .retry(after: .zero)
            }
        }
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let refreshing = Refreshing(tokenURL: server.url("/hello"))
        let session = lab.session {
            $0.features.interceptor = refreshing
            $0.connections.maximumPerHost = 1
            $0.timeouts.request = .seconds(5)
        }
        refreshing.lock.withLock { refreshing.session = session }
        defer { Task { await session.shutdown() } }
        let (url, _) = Self.flaky(server, "failures=1")
        #expect(try await session.get(url).text == "recovered on request 2, X-Attempt hello")
        #expect(server.connections.total == 1)
    }

    @Test("chained interceptors adapt in order; the first that wants a retry decides; an adapter's error reaches the caller")
    func chained() async throws {
        struct Refused: Error {}
        let server = try await HTTPTestServer(chain: nil)
        defer { Task { await server.stop() } }
        let tag = RequestAdapter { request, attempt in
            var request = request
            request.headers.append((name: "X-Attempt", value: "tagged-\(attempt.number)"))
            return request
        }
        let session = session(ChainedInterceptor([tag, RetryPolicy(maximumRetries: 0), Self.quick]))
        defer { Task { await session.shutdown() } }
        let (url, _) = Self.flaky(server, "failures=1")
        #expect(try await session.get(url).text == "recovered on request 2, X-Attempt tagged-2")

        var request = SecureRequest(url: server.url("/hello"))
        request.interceptor = RequestAdapter { _, _ in throw Refused() }
        await #expect(throws: Refused.self) { try await session.send(request) }
    }
}

/// Parts handed to a stream consumer.
final class PartsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func append(_ part: Data) { lock.withLock { data.append(part) } }
    var all: Data { lock.withLock { data } }
}

/// Progress figures reported.
private final class ProgressBox: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int64] = []
    func append(_ value: Int64) { lock.withLock { values.append(value) } }
    var all: [Int64] { lock.withLock { values } }
}
