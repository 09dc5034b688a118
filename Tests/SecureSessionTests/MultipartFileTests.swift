import Foundation
@testable import HTTPMessageSignatures
import NIOConcurrencyHelpers
import NIOCore
import PKIBuilder
import TestServers
import Testing

@testable import SecureSession

/// Multipart forms whose files are read from disk as they are sent (`MultipartForm.appendFile`),
/// and bodies sent from parts (`SecureRequest.bodyParts`).
@Suite("Multipart forms with files streamed from disk")
struct MultipartFileTests {
    let lab = try! TrustLab()

    /// A temporary folder, removed by `cleanUp`.
    static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "tsec-multipart-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The boundary of a multipart request.
    static func boundary(of request: SecureRequest) throws -> String {
        let contentType = try #require(request.header("Content-Type"))
        return String(contentType.dropFirst("multipart/form-data; boundary=".count))
    }

    @Test("files read as the form is sent: parts in order and whole (read back by Python's email parser), names and media types from the paths, the Content-Length the sum, sent whole again after a 307, over HTTP/1.1 and HTTP/2", arguments: [false, true])
    func filesStreamed(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let session = lab.session()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 31 / 7) })
        try report.write(to: URL(fileURLWithPath: folder + "/q3 report.PDF"))
        try Data("a,b\n1,2\n".utf8).write(to: URL(fileURLWithPath: folder + "/rows"))

        var form = MultipartForm()
        form.append("Quarterly report", name: "title")
        form.appendFile(at: folder + "/q3 report.PDF", name: "report")
        form.append(Data([0, 1, 2]), name: "raw", filename: "raw.bin")
        form.appendFile(at: folder + "/rows", name: "rows", filename: "renamed.csv")
        form.appendFile(at: folder + "/rows", name: "typed", contentType: "text/x-test")
        #expect(form.hasFiles)
        #expect(form.parts.map(\.filename) == [nil, "q3 report.PDF", "raw.bin", "renamed.csv", "rows"])
        #expect(form.parts.map(\.contentType) == [nil, "application/pdf", "application/octet-stream", "text/csv", "text/x-test"])

        let request = SecureRequest.multipart(url: server.url("/redirect?status=307&to=/collect"), form: form)
        #expect(request.body == nil)
        let parts = try #require(request.bodyParts)
        #expect(parts.map { if case .file = $0.source { "file" } else { "data" } } == ["data", "file", "data", "file", "data", "file", "data"])
        let length = try #require(try RequestBodySource.of(request)?.length)

        let response = try await session.send(request)
        #expect(response.statusCode == 200)
        let received = try #require(server.collected.all.last)
        #expect(Int64(received.count) == length, "the body is as long as announced")
        let contentType = try #require(request.header("Content-Type"))
        let parsed = try RequestBodyTests.parsedMultipart(received, contentType: contentType)
        #expect(parsed.map { $0[0] as? String } == ["title", "report", "raw", "rows", "typed"])
        #expect(parsed.map { $0[1] as? String } == [nil, "q3 report.PDF", "raw.bin", "renamed.csv", "rows"])
        #expect(parsed.map { $0[2] as? String } == ["text/plain", "application/pdf", "application/octet-stream", "text/csv", "text/x-test"])
        #expect((parsed[1][3] as? [Int]) == report.map(Int.init))
        #expect((parsed[3][3] as? [Int]) == Array("a,b\n1,2\n".utf8).map(Int.init))
        #expect((parsed[4][3] as? [Int]) == Array("a,b\n1,2\n".utf8).map(Int.init))

        // The same form in memory is the same body.
        let inMemory = try form.encoded()
        #expect(inMemory.body.count == received.count)
        await session.shutdown()
        await server.stop()
    }

    @Test("a file that holds its form's boundary fails the request before the body ends, and its signing, within a 64 KiB part or across two; encoded in memory, a boundary absent from it is chosen")
    func boundaryInFile() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/upload.bin"
        try Data().write(to: URL(fileURLWithPath: path))
        var form = MultipartForm()
        form.append("x", name: "title")
        form.appendFile(at: path, name: "file")
        let request = SecureRequest.multipart(url: server.url("/collect"), form: form)
        let boundary = Data(try Self.boundary(of: request).utf8)
        let message = "cannot send the upload file: " + MultipartForm.holdsBoundary(path)
        let signingKey = HTTPSignatureKey.generated(id: "client")

        for offset in [10, 65_536 - 20, 65_536 - boundary.count, 65_536, 200_000 - boundary.count] {
            var content = Data(repeating: UInt8(ascii: "T"), count: 200_000)
            content.replaceSubrange(offset..<offset + boundary.count, with: boundary)
            try content.write(to: URL(fileURLWithPath: path))
            await #expect("boundary at \(offset)") {
                _ = try await session.send(request)
            } throws: { error in
                guard case .unreadableUpload? = error.sessionFailureReason else { return false }
                return "\(error)" == message
            }
            // A signature's Content-Digest reads the file as it is sent, with the same check.
            #expect("signing, boundary at \(offset)") {
                _ = try HTTPMessageSigner(key: signingKey).signed(request)
            } throws: { error in
                "\(error)" == "the body cannot be covered: " + MultipartForm.holdsBoundary(path)
            }
        }
        #expect(server.collected.all.isEmpty, "no body reached the server whole")

        // Everything but the last byte of the boundary: sent.
        try (Data(repeating: UInt8(ascii: "T"), count: 65_530) + boundary.dropLast()).write(to: URL(fileURLWithPath: path))
        #expect(try await session.send(request).statusCode == 200)
        #expect(server.collected.all.count == 1)

        // Encoded in memory, the file is read first and the boundary chosen absent from it.
        try (Data("a".utf8) + boundary).write(to: URL(fileURLWithPath: path))
        let encoded = try form.encoded()
        #expect(!encoded.contentType.hasSuffix(String(decoding: boundary, as: UTF8.self)))
        #expect(encoded.body.range(of: Data("\r\n\r\na".utf8) + boundary + Data("\r\n--".utf8)) != nil)
        try FileManager.default.removeItem(atPath: path)
        #expect {
            _ = try form.encoded()
        } throws: { error in
            "\(error)" == "cannot send the upload file: \(path): no such file"
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("a missing file, or one that is not a regular file, fails the request before any connection")
    func unreadableFiles() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (path, reason) in [(folder + "/missing.pdf", "No such file or directory"), (folder, "not a regular file (its length must be known before sending)")] {
            var form = MultipartForm()
            form.appendFile(at: path, name: "file")
            await #expect {
                _ = try await session.send(.multipart(url: server.url("/collect"), form: form))
            } throws: { error in
                "\(error)" == "cannot send the upload file: \(path): \(reason)"
            }
        }
        #expect(server.connections.total == 0, "nothing was sent")
        await session.shutdown()
        await server.stop()
    }

    @Test("body parts of bytes and files: handed over in order in parts of at most 64 KiB, upload progress against their sum, a Content-Digest signed over the whole; a file gone before signing named")
    func bodyParts() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 / 5) })
        try file.write(to: URL(fileURLWithPath: folder + "/file"))
        let prefix = Data(repeating: 1, count: 70_000)
        var request = SecureRequest(.post, url: URL(string: "https://example.com/upload")!)
        request.bodyParts = [.data(prefix), .file(folder + "/file"), .data(Data()), .data(Data("}".utf8))]
        let reports = NIOLockedValueBox<[UploadProgress]>([])
        request.uploadProgress = { progress in reports.withLockedValue { $0.append(progress) } }
        let source = try #require(try RequestBodySource.of(request))
        #expect(source.length == 170_001)
        var handed: [ByteBuffer] = []
        try await source.send { handed.append($0) }
        #expect(handed.map(\.readableBytes) == [65_536, 4_464, 65_536, 34_464, 1])
        #expect(Data(handed.flatMap { $0.readableBytesView }) == prefix + file + Data("}".utf8))
        let seen = reports.withLockedValue { $0 }
        #expect(seen.map(\.bytesSent) == [65_536, 70_000, 135_536, 170_000, 170_001])
        #expect(seen.allSatisfy { $0.totalBytes == 170_001 })

        let signed = try HTTPMessageSigner(key: .generated(id: "client")).signed(request)
        #expect(signed.header("Content-Digest") == ContentDigest.fieldValue(for: prefix + file + Data("}".utf8)))
        // A file gone before signing: the signer says which, and why.
        try FileManager.default.removeItem(atPath: folder + "/file")
        #expect {
            _ = try HTTPMessageSigner(key: .generated(id: "client")).signed(request)
        } throws: { error in
            "\(error)" == "the body cannot be covered: \(folder)/file: No such file or directory"
        }
    }

    @Test("the search for a boundary finds it wherever the parts split it, parts shorter than it included, and nowhere else")
    func forbiddenBytesSearch() {
        let pattern = Data("--boundary".utf8)
        func found(_ parts: [String]) -> Bool {
            var search = ForbiddenBytesSearch(pattern)
            return parts.contains { search.isFound(in: ByteBuffer(string: $0)) }
        }
        let text = "xx--boundaryyy"
        for first in 0...text.count {
            for second in first...text.count {
                let parts = [String(text.prefix(first)), String(text.dropFirst(first).prefix(second - first)), String(text.dropFirst(second))]
                #expect(found(parts), "\(parts)")
            }
        }
        #expect(found(text.map { String($0) }), "one byte at a time")
        #expect(!found(["--boundar", "--boundar", "x-boundary", "--", "bo", "undar"]))
        #expect(!found(["--boundar"]))
        #expect(found(["-", "-", "b", "oundary"]))
    }
}
