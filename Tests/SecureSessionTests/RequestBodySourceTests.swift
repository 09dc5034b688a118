import Foundation
import NIOConcurrencyHelpers
import NIOCore
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
            "\(error)" == "cannot send the upload file: \(path) changed while it was sent (200000 bytes announced, 200003 read)"
        }
        // Or shrinks.
        try content.prefix(10).write(to: URL(fileURLWithPath: path))
        await #expect {
            try await source.send { _ in }
        } throws: { error in
            "\(error)" == "cannot send the upload file: \(path) changed while it was sent (200000 bytes announced, 10 read)"
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
}
