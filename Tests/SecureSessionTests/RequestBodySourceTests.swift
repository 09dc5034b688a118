import Foundation
import NIOConcurrencyHelpers
import NIOCore
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
}
