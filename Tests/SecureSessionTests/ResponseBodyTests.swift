import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing

@Suite("Response bodies read as AsyncSequences (bytes(for:))")
struct ResponseBodyTests {
    let lab = try! TrustLab()

    @Test("the head comes first, then the parts as they arrive, or the lines (\\n and \\r\\n, a last line without an end); the whole response once read, over HTTP/1.1 and HTTP/2", arguments: [false, true])
    func partsAndLines(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let session = lab.session()
        let (head, body) = try await session.bytes(for: SecureRequest(url: server.url("/bytes/1000000")))
        #expect(head.statusCode == 200)
        var received = 0
        var parts = 0
        for try await part in body {
            received += part.count
            parts += 1
        }
        #expect(received == 1_000_000)
        #expect(parts > 1)
        let response = try await body.response()
        #expect(response.statusCode == 200 && response.body.isEmpty && response.trustDecision?.isTrusted == true)

        server.files["events"] = "first\r\nsecond\n\nfourth, no end"
        let (_, events) = try await session.bytes(for: SecureRequest(url: server.url("/files/events")))
        var lines: [String] = []
        for try await line in events.lines { lines.append(line) }
        #expect(lines == ["first", "second", "", "fourth, no end"])

        let (emptyHead, empty) = try await session.bytes(for: SecureRequest(.head, url: server.url("/hello")))
        #expect(emptyHead.statusCode == 200)
        var none = 0
        for try await _ in empty { none += 1 }
        #expect(none == 0)
        await session.shutdown()
        await server.stop()
    }

    @Test("a line, a JSON line or a server-sent event without end (a server streaming one line forever) is refused past its bound, saying so, and the request ends with its connection")
    func unboundedLinesRefused() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session()
        func expectRefused(_ bound: Int, _ read: (ResponseBody) async throws -> Void) async throws {
            let (_, body) = try await session.bytes(for: SecureRequest(url: server.url("/endless")))
            await #expect {
                try await read(body)
            } throws: { error in
                guard case .invalidResponse(let detail)? = error.sessionFailureReason else { return false }
                return detail.contains("longer than \(bound) bytes") || detail.contains("larger than \(bound) bytes")
            }
        }
        try await expectRefused(ResponseLines.defaultMaximumLength) { body in for try await _ in body.lines {} }
        try await expectRefused(64 * 1024) { body in for try await _ in body.lines(maximumLength: 64 * 1024) {} }
        try await expectRefused(100_000) { body in for try await _ in body.decodedLines([Int].self, maximumLineLength: 100_000) {} }
        try await expectRefused(ServerSentEventParser.defaultMaximumEventSize) { body in for try await _ in body.events {} }
        try await expectRefused(10_000) { body in for try await _ in body.events(maximumEventSize: 10_000) {} }
        // Each refusal ended its request: the server sees its connections closed.
        for _ in 0..<200 where server.connections.open > 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(server.connections.open == 0)
        // A line within the bound still reads.
        server.files["lines"] = String(repeating: "y", count: 5_000) + "\nshort\n"
        let (_, fine) = try await session.bytes(for: SecureRequest(url: server.url("/files/lines")))
        var lines: [String] = []
        for try await line in fine.lines(maximumLength: 5_000) { lines.append(line) }
        #expect(lines.map(\.count) == [5_000, 5])
        await session.shutdown()
        await server.stop()
    }

    @Test("an unacceptable status throws at the head with its body; a connection that cannot be made throws there too")
    func failuresAtTheHead() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session()
        await #expect {
            _ = try await session.bytes(for: SecureRequest(url: server.url("/status/503")))
        } throws: { error in
            guard case .unacceptableStatus(503, let body)? = error.sessionFailureReason else { return false }
            return body == Data("status 503".utf8)
        }
        let port = server.port
        await server.stop()
        let fresh = lab.session()
        await #expect {
            _ = try await fresh.bytes(for: SecureRequest(url: URL(string: "https://127.0.0.1:\(port)/")!))
        } throws: { error in
            if case .connectionFailed? = error.sessionFailureReason { return true }
            return false
        }
        await fresh.shutdown()
        await session.shutdown()
    }

    @Test("a reader whose task is cancelled, or that drops the body unread, ends the request and frees its connection; a timeout reaches the reader")
    func endingTheReading() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session {
            $0.connections.maximumPerHost = 1
            $0.timeouts.request = .seconds(30)
        }
        let reading = Task {
            let (_, body) = try await session.bytes(for: SecureRequest(url: server.url("/endless")))
            for try await _ in body {}
        }
        try await Task.sleep(for: .milliseconds(200))
        reading.cancel()
        let clock = ContinuousClock()
        let cancelledAt = clock.now
        await #expect {
            try await reading.value
        } throws: { error in
            if case .cancelled? = error.sessionFailureReason { return true }
            return false
        }
        #expect(clock.now - cancelledAt < .seconds(5))

        do {
            let (_, dropped) = try await session.bytes(for: SecureRequest(url: server.url("/endless")))
            var iterator = dropped.makeAsyncIterator()
            #expect(try await iterator.next() != nil)
        }
        // The only connection allowed is free again: the request ended when its body went away.
        var quick = SecureRequest(url: server.url("/hello"))
        quick.timeout = .seconds(5)
        #expect(try await session.send(quick).text == "hello")

        var limited = SecureRequest(url: server.url("/endless"))
        limited.timeout = .milliseconds(400)
        let (_, endless) = try await session.bytes(for: limited)
        await #expect {
            for try await _ in endless {}
        } throws: { error in
            if case .timeout? = error.sessionFailureReason { return true }
            return false
        }
        await session.shutdown()
        await server.stop()
    }
}

@Suite("JSON lines read as they arrive")
struct DecodedLinesTests {
    struct Order: Decodable, Sendable, Equatable {
        let id: Int
        let item: String
    }

    @Test("one value per line, empty lines passed over; a line that does not fit fails naming the line and the place")
    func decoded() async throws {
        let lab = try TrustLab()
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        server.files["orders"] = #"{"id":1,"item":"tea"}"# + "\n\n" + #"{"id":2,"item":"coffee"}"# + "\r\n" + #"{"id":3,"item":"cake"}"#
        server.files["broken"] = #"{"id":1,"item":"tea"}"# + "\n" + #"{"id":"two","item":"coffee"}"# + "\n"
        let session = lab.session()
        let (_, body) = try await session.bytes(for: SecureRequest(url: server.url("/files/orders")))
        var orders: [Order] = []
        for try await order in body.decodedLines(Order.self) { orders.append(order) }
        #expect(orders == [Order(id: 1, item: "tea"), Order(id: 2, item: "coffee"), Order(id: 3, item: "cake")])

        let (_, broken) = try await session.bytes(for: SecureRequest(url: server.url("/files/broken")))
        var before: [Order] = []
        await #expect {
            for try await order in broken.decodedLines(Order.self) { before.append(order) }
        } throws: { error in
            guard case .undecodableResponse(let detail)? = error.sessionFailureReason else { return false }
            return detail == "line 2 of the body is not the JSON of Order: id: expected an integer"
        }
        #expect(before == [Order(id: 1, item: "tea")])
        await session.shutdown()
        await server.stop()
    }
}
