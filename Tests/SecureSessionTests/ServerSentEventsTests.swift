import Foundation
import PKIBuilder
import TestServers
import Testing

@testable import SecureSession

@Suite("Server-sent events (text/event-stream)")
struct ServerSentEventsTests {
    /// A body that arrives in exactly these parts.
    static func body(_ parts: [[UInt8]]) -> ResponseBody {
        let pipe = ResponseBodyPipe()
        pipe.start { pipe in
            pipe.deliver(ResponseHead(statusCode: 200, reasonPhrase: "OK", httpVersion: "HTTP/1.1", headers: []))
            for part in parts { try await pipe.push(Data(part)) }
            let timing = ResponseTiming(reusedConnection: true, queueing: .zero, connect: nil, tlsHandshake: nil, waiting: .zero, download: .zero)
            return SecureResponse(
                statusCode: 200, reasonPhrase: "OK", httpVersion: "HTTP/1.1", headers: [], body: Data(), url: URL(string: "https://example.test/")!,
                trustDecision: nil, redirects: [], duration: .zero, timing: timing
            )
        }
        return ResponseBody(lifetime: ResponseBody.Lifetime(pipe))
    }

    static func events(_ parts: [[UInt8]]) async throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for try await event in body(parts).events { events.append(event) }
        return events
    }

    static func events(_ parts: [String]) async throws -> [ServerSentEvent] {
        try await events(parts.map { Array($0.utf8) })
    }

    @Test("the standard's rules: line ends of every kind, even split between parts; comments; one leading space; multi-line data; id and retry carried over; unknown fields and bad values ignored")
    func rules() async throws {
        let stream = "\u{FEFF}data: first\r\n: a comment\r\n\r\nevent: delta\ndata:second, no space\ndata:  two spaces\n\nid: 7\rretry: 1500\rdata\r\r"
            + "data: after id\nid: bad\0id\nretry: soon\nfield: unknown\n\nevent: empty\n\ndata: cut off"
        let expected = [
            ServerSentEvent(data: "first"),
            ServerSentEvent(event: "delta", data: "second, no space\n two spaces"),
            ServerSentEvent(data: "", id: "7", retry: 1500),
            ServerSentEvent(data: "after id", id: "7", retry: 1500),
        ]
        #expect(try await Self.events([stream]) == expected)
        // However the stream is cut into parts, even within the byte-order mark or between a CR
        // and its LF, the events are the same.
        let bytes = Array(stream.utf8)
        for size in [1, 2, 3, 7] {
            let parts = stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
            #expect(try await Self.events(parts) == expected, "parts of \(size)")
        }
        #expect(try await Self.events(["data: a\r", "\ndata: b\r\n\r\n"]) == [ServerSentEvent(data: "a\nb")])
    }

    @Test("the parser on its own (for stream(_:into:)): events come as the parts that complete them arrive")
    func parserOnItsOwn() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.parse(Array("data: one\r".utf8)).isEmpty)
        #expect(try parser.parse(Array("\n".utf8)).isEmpty)
        #expect(try parser.parse(Array("\r\ndata: two\n\ndata: thr".utf8)) == [ServerSentEvent(data: "one"), ServerSentEvent(data: "two")])
        #expect(try parser.parse(Array("ee\n\n".utf8)) == [ServerSentEvent(data: "three")])
        // Bounded: an event's data and its current line together; many lines make one event too.
        var bounded = ServerSentEventParser(maximumEventSize: 16)
        #expect(try bounded.parse(Array("data: 0123456789\n\n".utf8)) == [ServerSentEvent(data: "0123456789")])
        #expect(throws: SecureSessionError.self) { try bounded.parse(Array("data: 0123456789abcdefg".utf8)) }
        var manyLines = ServerSentEventParser(maximumEventSize: 16)
        #expect(throws: SecureSessionError.self) { try manyLines.parse(Array("data: 01234\ndata: 56789\ndata: abcde\n".utf8)) }
    }

    @Test("read through bytes(for:) from a server")
    func fromServer() async throws {
        let lab = try TrustLab()
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        server.files["stream"] = "event: token\ndata: Hel\n\nevent: token\ndata: lo\n\nevent: done\ndata: {}\n\n"
        let session = lab.session()
        let (_, body) = try await session.bytes(for: SecureRequest(url: server.url("/files/stream")))
        var text = ""
        var last = ""
        for try await event in body.events {
            if event.event == "token" { text += event.data }
            last = event.event
        }
        #expect(text == "Hello")
        #expect(last == "done")
        await session.shutdown()
        await server.stop()
    }
}
