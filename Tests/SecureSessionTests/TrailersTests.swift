import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

/// Trailer fields: after a chunked HTTP/1.1 body and in HTTP/2's trailing HEADERS.
@Suite("Trailer fields")
struct TrailersTests {
    let lab = try! TrustLab()

    @Test("kept apart from the headers, in the order sent, whether the body is held, streamed, downloaded or read as bytes; the connection goes on", arguments: [false, true])
    func trailers(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let session = lab.session()
        let url = server.url("/trailers?x-checksum=sha256:2cf24dba&grpc-status=0")
        let response = try await session.get(url)
        #expect(response.httpVersion == (http2 ? "HTTP/2" : "HTTP/1.1"))
        #expect(response.text == "hello")
        #expect(response.trailers.map(\.name) == ["x-checksum", "grpc-status"])
        #expect(response.trailer("X-Checksum") == "sha256:2cf24dba")
        #expect(response.trailer("grpc-status") == "0")
        #expect(response.header("x-checksum") == nil, "trailer fields are not headers")
        #expect(response.header("Trailer") != nil)

        let streamed = try await session.stream(SecureRequest(url: url), head: { head in
            #expect(head.header("x-checksum") == nil)
        }, into: { _ in })
        #expect(streamed.trailer("x-checksum") == "sha256:2cf24dba")
        let folder = NSTemporaryDirectory() + "tsec-trailers-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let downloaded = try await session.download(SecureRequest(url: url), to: folder + "/body")
        #expect(downloaded.trailer("grpc-status") == "0")
        #expect(try String(contentsOfFile: folder + "/body", encoding: .utf8) == "hello")

        let (head, body) = try await session.bytes(for: SecureRequest(url: url))
        #expect(head.header("grpc-status") == nil)
        for try await _ in body {}
        #expect(try await body.response().trailer("x-checksum") == "sha256:2cf24dba")

        let without = try await session.get(server.url("/trailers"))
        #expect(without.text == "hello")
        #expect(without.trailers.isEmpty)
        #expect(without.timing.reusedConnection, "the connection goes on after a trailer section")
        await session.shutdown()
        await server.stop()
    }

    @Test("nghttpd (an independent HTTP/2 server) sending trailer fields after each body")
    func nghttpd() async throws {
        let chain = try lab.loopbackChain()
        let folder = NSTemporaryDirectory() + "tsec-nghttpd-trailers-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try chain.pemBundle.write(toFile: folder + "/chain.pem", atomically: true, encoding: .utf8)
        try chain[0].privateKeyPEM.write(toFile: folder + "/key.pem", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: folder + "/htdocs", withIntermediateDirectories: true)
        try "served with trailers\n".write(toFile: folder + "/htdocs/file.txt", atomically: true, encoding: .utf8)
        let server = try NGHTTPDServer(
            certificateFile: folder + "/chain.pem", keyFile: folder + "/key.pem", documentRoot: folder + "/htdocs",
            trailers: ["x-content-sha256: 9f86d081", "server-timing: total;dur=1"]
        )
        defer { server.stop() }
        let session = lab.session()
        let response = try await session.get(URL(string: "https://127.0.0.1:\(server.port)/file.txt")!)
        #expect(response.httpVersion == "HTTP/2")
        #expect(response.text == "served with trailers\n")
        #expect(response.trailers.map(\.name) == ["x-content-sha256", "server-timing"])
        #expect(response.trailer("server-timing") == "total;dur=1")
        await session.shutdown()
    }
}
