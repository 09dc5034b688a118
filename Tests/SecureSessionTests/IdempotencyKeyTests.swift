import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

@Suite("Idempotency keys")
struct IdempotencyKeyTests {
    let lab = try! TrustLab()
    static let url = URL(string: "https://api.psp.example/payments")!
    /// Quick retries: 10 ms, 20 ms, … without jitter.
    static let quick = RetryPolicy(maximumRetries: 3, initialDelay: .milliseconds(10), jitter: 0)

    private static func request(_ method: HTTPMethod = .post, headers: [(name: String, value: String)] = []) -> SecureRequest {
        SecureRequest(method, url: url, headers: headers, body: Data("amount=10".utf8))
    }

    private static func values(of name: String, in request: SecureRequest) -> [String] {
        request.headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    private static func isInvalidRequest(_ error: any Error, saying words: String) -> Bool {
        guard case .invalidRequest(let reason)? = error.sessionFailureReason else { return false }
        return reason.contains(words)
    }

    @Test("a POST or PATCH gets one key for all its attempts, a new one per request; other methods and a caller's own key are left alone")
    func keysPerRequest() async throws {
        let keys = IdempotencyKeys()
        let requestID = UUID()
        let first = try await keys.adapt(Self.request(), attempt: RequestAttempt(number: 1, elapsed: .zero, requestID: requestID))
        let retry = try await keys.adapt(Self.request(), attempt: RequestAttempt(number: 2, elapsed: .milliseconds(20), requestID: requestID))
        let other = try await keys.adapt(Self.request(), attempt: RequestAttempt(number: 1, elapsed: .zero))
        let expected = "\"\(requestID.uuidString.lowercased())\""
        #expect(Self.values(of: "Idempotency-Key", in: first) == [expected])
        #expect(Self.values(of: "Idempotency-Key", in: retry) == [expected])
        #expect(first.idempotencyKey == expected)
        #expect(other.idempotencyKey != nil && other.idempotencyKey != expected)
        #expect(IdempotencyKeys.key(for: RequestAttempt(number: 3, elapsed: .zero, requestID: requestID)) == requestID.uuidString.lowercased())

        let patch = try await keys.adapt(Self.request(.patch), attempt: RequestAttempt(number: 1, elapsed: .zero))
        #expect(patch.idempotencyKey != nil)
        for method: HTTPMethod in [.get, .put, .delete] {
            let left = try await keys.adapt(Self.request(method), attempt: RequestAttempt(number: 1, elapsed: .zero))
            #expect(left.headers.isEmpty, "\(method)")
        }
        // The caller's key, in any letter case, is kept and not doubled.
        let own = try await keys.adapt(Self.request(headers: [("idempotency-key", "\"order-42\"")]), attempt: RequestAttempt(number: 1, elapsed: .zero))
        #expect(own.headers.map(\.value) == ["\"order-42\""])
        #expect(own.idempotencyKey == "\"order-42\"")
    }

    @Test("another field and the bare format: PayPal-Request-Id: <uuid>, read back as the request's key")
    func otherFieldBare() async throws {
        let keys = IdempotencyKeys(fieldName: "PayPal-Request-Id", format: .bare)
        let requestID = UUID()
        let keyed = try await keys.adapt(Self.request(), attempt: RequestAttempt(number: 1, elapsed: .zero, requestID: requestID))
        #expect(Self.values(of: "PayPal-Request-Id", in: keyed) == [requestID.uuidString.lowercased()])
        #expect(keyed.idempotencyKeyField == "PayPal-Request-Id")
        #expect(keyed.idempotencyKey == requestID.uuidString.lowercased())
        #expect(keyed.idempotencyKeyFieldCarried?.name == "PayPal-Request-Id")
        #expect(keyed.isReplayable)
        // The same field on a request that names none is no key.
        let unnamed = Self.request(headers: [("PayPal-Request-Id", "abc")])
        #expect(unnamed.idempotencyKey == nil)
        #expect(!unnamed.isReplayable)
        // A caller's own value in the field is kept, and read once the field is named.
        let own = try await keys.adapt(unnamed, attempt: RequestAttempt(number: 1, elapsed: .zero))
        #expect(own.idempotencyKey == "abc")

        await #expect {
            _ = try await IdempotencyKeys(fieldName: "Request Id").adapt(Self.request(), attempt: RequestAttempt(number: 1, elapsed: .zero))
        } throws: { Self.isInvalidRequest($0, saying: "is not an HTTP token") }
    }

    @Test("reading a key: both standard fields in any case; empty, an empty string or two fields are no key")
    func readingKeys() {
        #expect(Self.request().idempotencyKey == nil)
        #expect(!Self.request().isReplayable)
        #expect(Self.request(.put).isReplayable)
        #expect(Self.request(headers: [("IDEMPOTENCY-KEY", " \"k1\" ")]).idempotencyKey == "\"k1\"")
        #expect(Self.request(headers: [("X-Idempotency-Key", "k2")]).idempotencyKey == "k2")
        #expect(Self.request(headers: [("X-Idempotency-Key", "k2")]).isReplayable)
        for value in ["", "  ", "\"\""] {
            #expect(Self.request(headers: [("Idempotency-Key", value)]).idempotencyKey == nil, "\(value.debugDescription)")
        }
        let twice = Self.request(headers: [("Idempotency-Key", "\"a\""), ("idempotency-key", "\"b\"")])
        #expect(twice.idempotencyKey == nil)
        #expect(!twice.isReplayable)
    }

    @Test("setting a key: a structured string escapes quotes and backslashes, replaces an earlier key; keys a format cannot carry are refused")
    func settingKeys() throws {
        var request = Self.request(headers: [("Idempotency-Key", "\"old\"")])
        try request.setIdempotencyKey(#"a"b\c"#)
        #expect(Self.values(of: "Idempotency-Key", in: request) == [#""a\"b\\c""#])
        try request.setIdempotencyKey("order-42", format: .bare)
        #expect(Self.values(of: "Idempotency-Key", in: request) == ["order-42"])
        #expect(request.idempotencyKeyField == nil)
        try request.setIdempotencyKey("order-43", field: "PayPal-Request-Id", format: .bare)
        #expect(request.idempotencyKeyField == "PayPal-Request-Id")
        #expect(request.idempotencyKey == "order-43")

        var refused = Self.request()
        #expect { try refused.setIdempotencyKey("") } throws: { Self.isInvalidRequest($0, saying: "cannot be empty") }
        #expect { try refused.setIdempotencyKey("commande-é") } throws: { Self.isInvalidRequest($0, saying: "printable ASCII only") }
        #expect { try refused.setIdempotencyKey("a\nb") } throws: { Self.isInvalidRequest($0, saying: "printable ASCII only") }
        #expect { try refused.setIdempotencyKey("a b", format: .bare) } throws: { Self.isInvalidRequest($0, saying: "visible ASCII without spaces") }
        #expect { try refused.setIdempotencyKey("k", field: "Bad Field") } throws: { Self.isInvalidRequest($0, saying: "is not an HTTP token") }
        #expect(refused.headers.isEmpty)
    }

    @Test("the retry policy repeats a keyed POST after a transient answer, a failure once sent, and a 409; never a 422, nor an unkeyed POST")
    func policy() {
        let policy = Self.quick
        let first = RequestAttempt(number: 1, elapsed: .zero)
        let keyed = Self.request(headers: [("Idempotency-Key", "\"k\"")])
        let unkeyed = Self.request()
        func answer(_ code: Int) -> AttemptOutcome { .response(ResponseHead(statusCode: code, headers: [])) }
        let broken = AttemptOutcome.failure(.connectionFailed("reset"), requestSent: true)
        let slow = AttemptOutcome.failure(.timeout(.seconds(1)), requestSent: true)

        for outcome in [answer(503), answer(409), broken, slow] {
            #expect(policy.decision(for: keyed, after: outcome, attempt: first) == .retry(after: .milliseconds(10)))
        }
        for outcome in [answer(503), answer(409), broken] {
            #expect(policy.decision(for: unkeyed, after: outcome, attempt: first) == .doNotRetry)
        }
        #expect(policy.decision(for: keyed, after: answer(422), attempt: first) == .doNotRetry)
        #expect(policy.decision(for: keyed, after: answer(201), attempt: first) == .doNotRetry)
        // A 409 to a GET without a key is a conflict, not a request in progress.
        #expect(policy.decision(for: Self.request(.get), after: answer(409), attempt: first) == .doNotRetry)
        #expect(policy.decision(for: keyed, after: broken, attempt: RequestAttempt(number: 4, elapsed: .zero)) == .doNotRetry)

        var ignoring = policy
        ignoring.retriesRequestsWithIdempotencyKeys = false
        #expect(ignoring.decision(for: keyed, after: answer(503), attempt: first) == .doNotRetry)
        #expect(ignoring.decision(for: keyed, after: broken, attempt: first) == .doNotRetry)
        var no409 = policy
        no409.retryableStatusCodesWithIdempotencyKey = []
        #expect(no409.decision(for: keyed, after: answer(409), attempt: first) == .doNotRetry)
    }

    @Test("answers lost twice: the payment is made once, every attempt carried the same key, the third gets the first answer")
    func lostAnswers() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let session = lab.session { $0.features.interceptor = ChainedInterceptor([IdempotencyKeys(), Self.quick]) }
        defer { Task { await session.shutdown() } }

        let response = try await session.post(server.url("/payments?lose=2"), body: Data("order-1".utf8))
        #expect(response.statusCode == 201)
        #expect(response.text == "payment 1 for order-1")
        #expect(response.headers.first { $0.name == "Idempotent-Replayed" }?.value == "true")
        #expect(response.attempts == 3)
        #expect(server.payments.created == 1)
        let key = try #require(response.sentRequest?.idempotencyKey)
        #expect(server.payments.keys == [key, key, key])

        // The next request is another operation: another key, another payment.
        let next = try await session.post(server.url("/payments"), body: Data("order-2".utf8))
        #expect(next.text == "payment 2 for order-2")
        #expect(next.sentRequest?.idempotencyKey != key)

        // The same policy without honouring keys: the POST is not sent again. (On a new
        // connection: the session itself sends a keyed request again when a connection kept
        // alive fails it before any answer.)
        var ignoring = Self.quick
        ignoring.retriesRequestsWithIdempotencyKeys = false
        let fresh = lab.session { $0.features.interceptor = ChainedInterceptor([IdempotencyKeys(), ignoring]) }
        defer { Task { await fresh.shutdown() } }
        await #expect(throws: SecureSessionError.self) {
            try await fresh.post(server.url("/payments?lose=1"), body: Data("order-3".utf8))
        }
        #expect(server.payments.created == 3)
        #expect(server.payments.keys.count == 5)
    }

    @Test("a 409 while the first request with the key is processed is tried again; a key reused with another body gets a 422, not retried")
    func conflicts() async throws {
        let server = try await HTTPTestServer(chain: nil)
        defer { Task { await server.stop() } }
        let session = lab.session { $0.features.interceptor = ChainedInterceptor([IdempotencyKeys(), Self.quick]) }
        defer { Task { await session.shutdown() } }

        let busy = try await session.post(server.url("/payments?busy=2"), body: Data("order-1".utf8))
        #expect(busy.statusCode == 201)
        #expect(busy.attempts == 3)
        #expect(server.payments.created == 1)

        // The caller's own key, kept with the order, used again for another body.
        var first = SecureRequest(.post, url: server.url("/payments"), body: Data("order-2".utf8))
        try first.setIdempotencyKey("order-2")
        #expect(try await session.send(first).statusCode == 201)
        var reused = first
        reused.body = Data("order-2, changed".utf8)
        await #expect {
            try await session.send(reused)
        } throws: { error in
            guard case .unacceptableStatus(422, let body)? = error.sessionFailureReason else { return false }
            return String(decoding: body, as: UTF8.self).contains("was used with another body")
        }
        #expect(server.payments.requests(withKey: "\"order-2\"") == 2)
        #expect(server.payments.created == 2)
    }

    @Test("a keyed POST that meets a connection the server dropped as idle is sent again on a new one; a request with two keys is refused")
    func staleConnection() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let session = lab.session()
        defer { Task { await session.shutdown() } }
        #expect(try await session.get(server.url("/once")).text == "once")
        var keyed = SecureRequest(.post, url: server.url("/once"), body: Data("x".utf8))
        try keyed.setIdempotencyKey("k-1")
        #expect(try await session.send(keyed).text == "once")
        #expect(server.connections.total == 2)

        let twice = SecureRequest(.post, url: server.url("/payments"), headers: [("Idempotency-Key", "\"a\""), ("Idempotency-Key", "\"b\"")], body: Data("x".utf8))
        await #expect {
            try await session.send(twice)
        } throws: { Self.isInvalidRequest($0, saying: "carries 2 Idempotency-Key fields") }
        #expect(server.payments.keys.isEmpty)
    }
}
