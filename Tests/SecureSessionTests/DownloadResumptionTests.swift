import Foundation
import NIOConcurrencyHelpers
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

@Suite("Resumed downloads: range requests after a broken body, and partial files continued")
struct DownloadResumptionTests {
    let lab = try! TrustLab()
    let directory = NSTemporaryDirectory() + "tsec-resume-\(UUID().uuidString)"

    init() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// A `/ranged` URL of `server` with its own tally key and `query`.
    static func ranged(_ server: HTTPTestServer, _ query: String) -> URL {
        server.url("/ranged?key=\(UUID().uuidString)&\(query)")
    }

    func session(retrying: Bool = true, configure: (inout SecureSessionConfiguration) -> Void = { _ in }) -> SecureSession {
        lab.session { configuration in
            if retrying { configuration.features.interceptor = RetryPolicy(maximumRetries: 4, initialDelay: .milliseconds(10), jitter: 0) }
            configure(&configuration)
        }
    }

    func contents(_ name: String) -> [UInt8]? {
        FileManager.default.contents(atPath: directory + "/" + name).map(Array.init)
    }

    func write(_ bytes: [UInt8], to name: String) {
        _ = FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(bytes))
    }

    /// The files of the directory: no temporary file is left behind.
    var names: [String] { (try? FileManager.default.contentsOfDirectory(atPath: directory).sorted()) ?? [] }

    @Test("a body that breaks off is continued from where it stopped, on condition of its strong ETag, over HTTP/1.1 and HTTP/2", arguments: [false, true])
    func continuedAfterBreaks(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let session = session()
        let size = 300_000
        let url = Self.ranged(server, "size=\(size)&etag=e&cuts=2&cut=100000")
        let progress = NIOLockedValueBox<[TransferProgress]>([])
        let response = try await session.download(SecureRequest(url: url), to: directory + "/body") { made in
            progress.withLockedValue { $0.append(made) }
        }
        #expect(contents("body") == HTTPTestServer.rangedBody(size: size))
        #expect(response.statusCode == 206)
        #expect(response.attempts == 3)
        // Where each break fell depends on what had crossed the network (HTTP/2 flow control,
        // a loaded machine); the last attempt asked for a rest, never the whole.
        let asked = try #require(response.header("X-Range-Asked"))
        #expect(asked.hasPrefix("bytes=") && (Int(asked.dropFirst("bytes=".count).dropLast()) ?? 0) >= 100_000, "\(asked)")
        #expect(response.header("X-If-Range") == #""e-v1""#)
        // Progress counts the file, never going back, and knows the whole length throughout.
        let seen = progress.withLockedValue { $0 }
        #expect(seen.map(\.bytesReceived) == seen.map(\.bytesReceived).sorted())
        #expect(seen.last?.bytesReceived == Int64(size))
        #expect(seen.allSatisfy { $0.expectedBytes == Int64(size) })
        #expect(names == ["body"])
        await session.shutdown()
        await server.stop()
    }

    @Test("a strong Last-Modified (a second or more before Date) is the condition when there is no ETag; a weak ETag or no validator starts over")
    func validators() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        let dated = try await session.download(SecureRequest(url: Self.ranged(server, "size=5000&modified=1&cuts=1&cut=1000")), to: directory + "/dated")
        #expect(dated.statusCode == 206)
        #expect(dated.header("X-If-Range") == "Sun, 01 Nov 2026 10:00:00 GMT")
        #expect(contents("dated") == HTTPTestServer.rangedBody(size: 5000))
        for query in ["etag=e&weak=1", ""] {
            let restarted = try await session.download(SecureRequest(url: Self.ranged(server, "size=5000&cuts=1&cut=1000&" + query)), to: directory + "/restarted")
            #expect(restarted.statusCode == 200, "\(query)")
            #expect(restarted.header("X-Range-Asked") == "none", "\(query)")
            #expect(contents("restarted") == HTTPTestServer.rangedBody(size: 5000), "\(query)")
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("a body that changed between attempts (If-Range no longer holds) or a server ignoring ranges sends it whole: the file is the new body, never a splice")
    func changedOrIgnored() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        let changed = try await session.download(
            SecureRequest(url: Self.ranged(server, "size=5000&etag=e&cuts=1&cut=1000&change-after=1")),
            to: directory + "/changed"
        )
        #expect(changed.statusCode == 200)
        #expect(changed.header("X-If-Range") == #""e-v1""#)
        #expect(changed.header("ETag") == #""e-v2""#)
        #expect(contents("changed") == HTTPTestServer.rangedBody(size: 5000, version: 2))
        let ignored = try await session.download(SecureRequest(url: Self.ranged(server, "size=5000&etag=e&cuts=1&cut=1000&ignore-range=1")), to: directory + "/ignored")
        #expect(ignored.statusCode == 200)
        #expect(ignored.header("X-Range-Asked") == "bytes=1000-")
        #expect(contents("ignored") == HTTPTestServer.rangedBody(size: 5000))
        await session.shutdown()
        await server.stop()
    }

    @Test("a 206 that does not start where the file ends, or that nobody asked for, fails the download, leaving nothing; decompressing sessions start over instead")
    func wrongRangeAndDecompression() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        write([1, 2, 3], to: "kept")
        await #expect {
            _ = try await session.download(SecureRequest(url: Self.ranged(server, "size=5000&etag=e&cuts=1&cut=1000&shift=7")), to: directory + "/kept")
        } throws: { error in
            guard case .invalidResponse(let detail)? = error.sessionFailureReason else { return false }
            return detail == "asked for the bytes from 1000 on, the server sent Content-Range: bytes 1007-4999/5000"
        }
        #expect(contents("kept") == [1, 2, 3])
        await #expect {
            _ = try await session.download(SecureRequest(url: Self.ranged(server, "size=5000&partial-anyway=1")), to: directory + "/kept")
        } throws: { error in
            guard case .invalidResponse(let detail)? = error.sessionFailureReason else { return false }
            return detail == "a 206 (partial content) answered a request for the whole body"
        }
        #expect(contents("kept") == [1, 2, 3])
        #expect(names == ["kept"])
        let decompressing = self.session { $0.responses.decompression = .enabled() }
        let whole = try await decompressing.download(SecureRequest(url: Self.ranged(server, "size=5000&etag=e&cuts=1&cut=1000")), to: directory + "/whole")
        #expect(whole.statusCode == 200)
        #expect(contents("whole") == HTTPTestServer.rangedBody(size: 5000))
        await decompressing.shutdown()
        await session.shutdown()
        await server.stop()
    }

    @Test("continuingPartialFile asks for the bytes after the file's and appends them; the request's own If-Range is the condition; a file already whole is a 416 left as it is")
    func continuingPartialFile() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session(retrying: false)
        let body = HTTPTestServer.rangedBody(size: 8000)
        write(Array(body[..<3000]), to: "partial")
        let progress = NIOLockedValueBox<[TransferProgress]>([])
        let continued = try await session.download(SecureRequest(url: Self.ranged(server, "size=8000")), to: directory + "/partial", continuingPartialFile: true) { made in
            progress.withLockedValue { $0.append(made) }
        }
        #expect(continued.statusCode == 206)
        #expect(continued.header("X-Range-Asked") == "bytes=3000-")
        #expect(continued.header("X-If-Range") == "none")
        #expect(contents("partial") == body)
        #expect(progress.withLockedValue { $0.last } == TransferProgress(bytesReceived: 8000, expectedBytes: 8000))

        // A condition that holds continues; one that does not brings the whole new body.
        for (condition, status) in [(#""e-v1""#, 206), (#""e-v0""#, 200)] {
            write(Array(body[..<3000]), to: "conditional")
            var request = SecureRequest(url: Self.ranged(server, "size=8000&etag=e"))
            request.headers.append((name: "If-Range", value: condition))
            let answered = try await session.download(request, to: directory + "/conditional", continuingPartialFile: true)
            #expect(answered.statusCode == status)
            #expect(answered.header("X-If-Range") == condition)
            #expect(contents("conditional") == body)
        }

        let complete = try await session.download(SecureRequest(url: Self.ranged(server, "size=8000")), to: directory + "/partial", continuingPartialFile: true)
        #expect(complete.statusCode == 416)
        #expect(contents("partial") == body)

        // No file yet, or an empty one: an ordinary download.
        write([], to: "empty")
        for name in ["absent", "empty"] {
            let fresh = try await session.download(SecureRequest(url: Self.ranged(server, "size=8000")), to: directory + "/" + name, continuingPartialFile: true)
            #expect(fresh.statusCode == 200)
            #expect(fresh.header("X-Range-Asked") == "none")
            #expect(contents(name) == body)
        }
        #expect(names == ["absent", "conditional", "empty", "partial"])
        await session.shutdown()
        await server.stop()
    }

    @Test("continuing, a download that fails keeps what arrived for the next call; an error status leaves the partial file as it was")
    func continuingAfterFailures() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session(retrying: false)
        let body = HTTPTestServer.rangedBody(size: 8000)
        let url = Self.ranged(server, "size=8000&cuts=2&cut=2500")
        for expected in [2500, 5000] {
            await #expect(throws: SecureSessionError.self) {
                _ = try await session.download(SecureRequest(url: url), to: directory + "/growing", continuingPartialFile: true)
            }
            #expect(contents("growing") == Array(body[..<expected]))
        }
        let finished = try await session.download(SecureRequest(url: url), to: directory + "/growing", continuingPartialFile: true)
        #expect(finished.header("X-Range-Asked") == "bytes=5000-")
        #expect(contents("growing") == body)

        // Without continuing, a failure leaves nothing behind, as before.
        await #expect(throws: SecureSessionError.self) {
            _ = try await session.download(SecureRequest(url: Self.ranged(server, "size=8000&cuts=1&cut=2500")), to: directory + "/lost")
        }
        #expect(contents("lost") == nil)

        write(Array(body[..<3000]), to: "partial")
        await #expect {
            _ = try await session.download(SecureRequest(url: server.url("/status/404")), to: directory + "/partial", continuingPartialFile: true)
        } throws: { error in
            guard case .unacceptableStatus(404, _)? = error.sessionFailureReason else { return false }
            return true
        }
        #expect(contents("partial") == Array(body[..<3000]))
        #expect(names == ["growing", "partial"])
        await session.shutdown()
        await server.stop()
    }

    @Test("continuing is refused with decompression or with a Range of the request's own; a Range of its own is downloaded as it is")
    func continuingRefused() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let decompressing = session(retrying: false) { $0.responses.decompression = .enabled() }
        await #expect {
            _ = try await decompressing.download(SecureRequest(url: Self.ranged(server, "")), to: directory + "/x", continuingPartialFile: true)
        } throws: { error in
            guard case .invalidRequest(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("decompresses")
        }
        let session = session()
        var ranged = SecureRequest(url: Self.ranged(server, "size=8000&etag=e"))
        ranged.headers.append((name: "Range", value: "bytes=7000-"))
        await #expect(throws: SecureSessionError.self) {
            _ = try await session.download(ranged, to: directory + "/x", continuingPartialFile: true)
        }
        let part = try await session.download(ranged, to: directory + "/part")
        #expect(part.statusCode == 206)
        #expect(contents("part") == Array(HTTPTestServer.rangedBody(size: 8000)[7000...]))
        #expect(names == ["part"])
        await decompressing.shutdown()
        await session.shutdown()
        await server.stop()
    }
}
