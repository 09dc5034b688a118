import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import PKIBuilder
import TestServers
import Testing

@testable import SecureSession

@Suite("Upload bodies read from a file")
struct RequestBodySourceTests {
    @Test("a file is handed over in 64 KiB parts, whole and in order; one that changed length since it was measured fails instead of sending another body")
    func fileParts() async throws {
        let path = NSTemporaryDirectory() + "tsec-body-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let content = Data((0..<200_000).map { (index: Int) -> UInt8 in UInt8(truncatingIfNeeded: index / 3) })
        try content.write(to: URL(fileURLWithPath: path))
        var request = SecureRequest(.put, url: URL(string: "https://example.com/")!)
        request.bodyFile = path
        let source = try #require(try RequestBodySource.of(request))
        #expect(source.length == 200_000)

        let parts = NIOLockedValueBox<[ByteBuffer]>([])
        try await source.send { part in parts.withLockedValue { $0.append(part) } }
        let sent = parts.withLockedValue { $0 }
        #expect(sent.map(\.readableBytes) == [65_536, 65_536, 65_536, 3_392])
        #expect(Data(sent.flatMap { $0.readableBytesView }) == content)

        // The file grows after it was measured: the announced length would be a lie.
        try (content + Data([1, 2, 3])).write(to: URL(fileURLWithPath: path))
        await #expect {
            try await source.send { _ in }
        } throws: { error in
            "\(error)" == "cannot send the upload file: \(path) changed since it was measured (200000 bytes announced, 200003 read)"
        }
        // Or shrinks.
        try content.prefix(10).write(to: URL(fileURLWithPath: path))
        await #expect {
            try await source.send { _ in }
        } throws: { error in
            "\(error)" == "cannot send the upload file: \(path) changed since it was measured (200000 bytes announced, 10 read)"
        }
    }

    @Test("upload progress: reported after every 64 KiB part taken, for a file and for bytes in memory, over HTTP/1.1 and HTTP/2; an empty body once; bodies arrive whole", arguments: [false, true])
    func uploadProgress(http2: Bool) async throws {
        let lab = try TrustLab()
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        defer { Task { await server.stop() } }
        let session = lab.session()
        defer { Task { await session.shutdown() } }
        let path = NSTemporaryDirectory() + "tsec-progress-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let content = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 / 7) })
        try content.write(to: URL(fileURLWithPath: path))

        let fromFile = SecureRequest.upload(url: server.url("/collect"), fromFile: path)
        let inMemory = SecureRequest(.post, url: server.url("/collect"), body: content)
        let empty = SecureRequest(.post, url: server.url("/collect"), body: Data())
        for (index, var request) in [fromFile, inMemory, empty].enumerated() {
            let reports = NIOLockedValueBox<[UploadProgress]>([])
            request.uploadProgress = { progress in reports.withLockedValue { $0.append(progress) } }
            _ = try await session.send(request)
            let seen = reports.withLockedValue { $0 }
            let total: Int64 = index == 2 ? 0 : 300_000
            #expect(seen.map(\.bytesSent) == (index == 2 ? [0] : [65_536, 131_072, 196_608, 262_144, 300_000]), "\(index)")
            #expect(seen.allSatisfy { $0.totalBytes == total })
            #expect(seen.last?.fractionCompleted == 1)
        }
        #expect(server.collected.all.suffix(3) == [content, content, Data()])
    }

    @Test("an HTTP/1.1 body is written at most 16 parts ahead of the socket: the seventeenth waits until the socket took one, the end of the body until it took all, a failed write fails the next")
    func writesInFlight() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let holder = HeldWrites()
        let channel = try await ClientBootstrap(group: group).connect(to: try #require(server.localAddress)).get()
        try await channel.eventLoop.submit { try channel.pipeline.syncOperations.addHandler(holder) }.get()
        let written = NIOLockedValueBox(0)
        let limit = WritesInFlight.limit
        let writer = Task {
            let inFlight = WritesInFlight(channel: channel)
            for index in 1...limit + 2 {
                try await inFlight.write(.body(.byteBuffer(ByteBuffer(string: "\(index)"))))
                written.withLockedValue { $0 = index }
            }
            try await inFlight.finish()
            written.withLockedValue { $0 = -1 }
        }
        func settled(at count: Int) async throws -> Bool {
            for _ in 0..<200 where written.withLockedValue({ $0 }) != count { try await Task.sleep(for: .milliseconds(5)) }
            try await Task.sleep(for: .milliseconds(50))
            return written.withLockedValue { $0 } == count
        }
        #expect(try await settled(at: limit), "\(limit) parts go before the socket took any")
        try await channel.eventLoop.submit { holder.take(1) }.get()
        #expect(try await settled(at: limit + 1))
        try await channel.eventLoop.submit { holder.take(1) }.get()
        #expect(try await settled(at: limit + 2))
        try await channel.eventLoop.submit { holder.take(limit - 1) }.get()
        #expect(try await settled(at: limit + 2), "the last part is not taken yet")
        try await channel.eventLoop.submit { holder.take(1) }.get()
        try await writer.value
        #expect(written.withLockedValue { $0 } == -1)

        // A write that fails (the connection closed under it) fails a later one.
        let failing = Task {
            let inFlight = WritesInFlight(channel: channel)
            for index in 1...limit + 1 { try await inFlight.write(.body(.byteBuffer(ByteBuffer(string: "\(index)")))) }
        }
        for _ in 0..<200 where holder.count < limit { try await Task.sleep(for: .milliseconds(5)) }
        try await channel.eventLoop.submit { holder.fail(1) }.get()
        await #expect(throws: ChannelError.self) { try await failing.value }
        try await channel.eventLoop.submit { holder.take(limit) }.get()
        try await channel.close()
        try await server.close()
        try await group.shutdownGracefully()
    }
}

/// Holds the writes that reach it, as a socket that takes nothing, until told to take some.
private final class HeldWrites: ChannelOutboundHandler, @unchecked Sendable {
    typealias OutboundIn = HTTPClientRequestPart
    private let lock = NSLock()
    private var promises: [EventLoopPromise<Void>?] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        lock.withLock { promises.append(promise) }
    }

    /// How many writes are held (read off the event loop only by a test waiting for them).
    var count: Int { lock.withLock { promises.count } }

    /// Takes the `count` oldest writes held (on the event loop).
    func take(_ count: Int) {
        let taken = lock.withLock {
            defer { promises.removeFirst(min(count, promises.count)) }
            return Array(promises.prefix(count))
        }
        for promise in taken { promise?.succeed() }
    }

    /// Fails the `count` oldest writes held, as a closed connection does (on the event loop).
    func fail(_ count: Int) {
        let failed = lock.withLock {
            defer { promises.removeFirst(min(count, promises.count)) }
            return Array(promises.prefix(count))
        }
        for promise in failed { promise?.fail(ChannelError.ioOnClosedChannel) }
    }
}
