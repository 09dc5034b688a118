import Foundation
import NIOConcurrencyHelpers
import PKIBuilder
import SecureSession
import TestServers
import Testing

@Suite("Request bodies written while they are sent (RequestBodyStream)")
struct RequestBodyStreamTests {
    let lab = try! TrustLab()

    /// Lines `first..<last`, one part each.
    static func lines(_ range: Range<Int>) -> RequestBodyStream {
        RequestBodyStream { writer in
            for number in range { try await writer.write("line \(number)\n") }
        }
    }

    static func text(_ range: Range<Int>) -> Data {
        Data(range.map { "line \($0)\n" }.joined().utf8)
    }

    @Test("a body of unknown length goes chunked over HTTP/1.1 and as DATA frames over HTTP/2, whole and in order; a known length is its Content-Length", arguments: [false, true])
    func unknownAndKnownLength(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let session = lab.session()
        var chunked = SecureRequest(.post, url: server.url("/headers"))
        chunked.bodyStream = Self.lines(0..<300)
        let fields = try await session.send(chunked).decode([String: String].self)
        // (Over HTTP/2 the server's translation to HTTP/1 adds the field itself.)
        if !http2 { #expect(fields["transfer-encoding"] == "chunked", "\(fields)") }
        #expect(fields["content-length"] == nil)

        var collected = SecureRequest(.post, url: server.url("/collect"))
        collected.bodyStream = Self.lines(0..<300)
        let reports = NIOLockedValueBox<[UploadProgress]>([])
        collected.uploadProgress = { progress in reports.withLockedValue { $0.append(progress) } }
        _ = try await session.send(collected)
        #expect(server.collected.all.last == Self.text(0..<300))
        let seen = reports.withLockedValue { $0 }
        #expect(seen.count == 300)
        #expect(seen.last?.bytesSent == Int64(Self.text(0..<300).count))
        #expect(seen.allSatisfy { $0.totalBytes == nil && $0.fractionCompleted == nil })

        let length = Int64(Self.text(0..<10).count)
        var known = SecureRequest(.post, url: server.url("/headers"))
        known.bodyStream = RequestBodyStream(length: length) { writer in
            for number in 0..<10 { try await writer.write("line \(number)\n") }
        }
        let knownFields = try await session.send(known).decode([String: String].self)
        #expect(knownFields["content-length"] == String(length))
        #expect(knownFields["transfer-encoding"] == nil)
        await session.shutdown()
        await server.stop()
    }

    @Test("a producer that fails, or writes other than the length announced, fails the request as an unreadable upload; the server never gets the body as whole", arguments: [false, true])
    func failingProducers(http2: Bool) async throws {
        struct DatabaseGone: Error {}
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let session = lab.session()
        let before = server.collected.all.count
        let cases: [(RequestBodyStream, String)] = [
            (RequestBodyStream { writer in
                try await writer.write("row 1\n")
                throw DatabaseGone()
            }, "cannot send the upload file: the body stream failed: DatabaseGone()"),
            (RequestBodyStream(length: 100) { writer in try await writer.write("only 10 b\n") }, "cannot send the upload file: the body stream wrote 10 bytes, 100 announced"),
            (RequestBodyStream(length: 5) { writer in try await writer.write("more than five") }, "cannot send the upload file: the body stream wrote more than the 5 bytes announced"),
        ]
        for (stream, expected) in cases {
            var request = SecureRequest(.post, url: server.url("/collect"))
            request.bodyStream = stream
            await #expect {
                _ = try await session.send(request)
            } throws: { error in
                "\(error)" == expected
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(server.collected.all.count == before)
        // The session goes on working.
        #expect(try await session.get(server.url("/hello")).text == "hello")
        await session.shutdown()
        await server.stop()
    }

    @Test("a server that answers (413) before taking the body: its answer is the response, whatever the producer made of the broken write", arguments: [false, true])
    func earlyAnswer(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let session = lab.session()
        for swallowsErrors in [false, true] {
            var request = SecureRequest(.post, url: server.url("/refuse-upload"))
            request.bodyStream = RequestBodyStream { writer in
                for _ in 0..<1000 {
                    do {
                        try await writer.write(Data(repeating: 7, count: 64 * 1024))
                    } catch {
                        if swallowsErrors { return }
                        throw error
                    }
                }
            }
            request.validation = ResponseValidation.none
            let response = try await session.send(request)
            #expect(response.statusCode == 413, "swallowing: \(swallowsErrors)")
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("a 307 sends the body again by calling the producer again; once(_:) cannot, and says so")
    func replays() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session()
        let calls = NIOLockedValueBox(0)
        var replayable = SecureRequest(.post, url: server.url("/redirect?status=307&to=/collect"))
        replayable.bodyStream = RequestBodyStream { writer in
            calls.withLockedValue { $0 += 1 }
            try await writer.write("again and again")
        }
        _ = try await session.send(replayable)
        #expect(calls.withLockedValue { $0 } == 2)
        #expect(server.collected.all.last == Data("again and again".utf8))

        let parts = AsyncStream<Data> { continuation in
            continuation.yield(Data("only ".utf8))
            continuation.yield(Data("once".utf8))
            continuation.finish()
        }
        var once = SecureRequest(.post, url: server.url("/collect"))
        once.bodyStream = .once(parts)
        _ = try await session.send(once)
        #expect(server.collected.all.last == Data("only once".utf8))
        once.url = server.url("/redirect?status=307&to=/collect")
        await #expect {
            _ = try await session.send(once)
        } throws: { error in
            "\(error)".contains("its parts were sent once already and cannot be sent again")
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("writes that overlap, or come after the producer returned, are refused: they never reach the connection")
    func misusedWriters() async throws {
        // HTTP/2: a part larger than the stream's flow-control window keeps its write waiting.
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = lab.session()
        var overlapping = SecureRequest(.post, url: server.url("/collect"))
        overlapping.bodyStream = RequestBodyStream { writer in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { try await writer.write(Data(repeating: 1, count: 1 << 20)) } }
                try await group.waitForAll()
            }
        }
        await #expect {
            _ = try await session.send(overlapping)
        } throws: { error in
            "\(error)".contains("wrote a part before the last one was taken")
        }

        let kept = NIOLockedValueBox<RequestBodyWriter?>(nil)
        var keeping = SecureRequest(.post, url: server.url("/collect"))
        keeping.bodyStream = RequestBodyStream { writer in
            kept.withLockedValue { $0 = writer }
            try await writer.write("whole")
        }
        _ = try await session.send(keeping)
        #expect(server.collected.all.last == Data("whole".utf8))
        let late = try #require(kept.withLockedValue { $0 })
        await #expect {
            try await late.write("late")
        } throws: { error in
            "\(error)".contains("wrote after its producer returned")
        }
        // One kind of body at a time: the stream replaces the bytes.
        var replaced = SecureRequest(.post, url: server.url("/collect"), body: Data("x".utf8))
        replaced.bodyStream = Self.lines(0..<1)
        #expect(replaced.body == nil && replaced.bodyStream != nil)
        await session.shutdown()
        await server.stop()
    }
}
