import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing

@Suite("Expect: 100-continue")
struct ExpectContinueTests {
    let lab = try! TrustLab()
    static let size = 4 << 20

    /// A request with a body of `size` bytes made while it is sent (of known length).
    static func upload(to url: URL) -> SecureRequest {
        var request = SecureRequest(.post, url: url)
        request.bodyStream = RequestBodyStream(length: Int64(size)) { writer in
            for _ in 0..<(size / (64 * 1024)) { try await writer.write(Data(repeating: 0x61, count: 64 * 1024)) }
        }
        return request
    }

    @Test("an upload answered by a challenge before its body crosses the network once, not twice")
    func challengeBeforeTheBody() async throws {
        for waits in [true, false] {
            let server = try await HTTPTestServer(chain: lab.loopbackChain())
            let session = lab.session { configuration in
                configuration.connections.expectContinue = waits ? .curl : nil
                configuration.features.credentialStore.set(
                    .user("alice", password: "wonderland"),
                    for: ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: true, realm: nil, method: .httpBasic)
                )
            }
            let response = try await session.send(Self.upload(to: server.url("/basic")))
            #expect(response.text == "welcome alice")
            if waits {
                #expect(server.receivedBodyBytes.total == Self.size)
            } else {
                #expect(server.receivedBodyBytes.total > Self.size)
            }
            await session.shutdown()
            await server.stop()
        }
    }

    @Test("the body follows the server's 100 at once, or the timeout when the server says nothing; after a 417 the request goes again without the expectation; small bodies and HTTP/2 do not wait")
    func waiting() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        // A long timeout that a 100 cuts short, and a short one a silent server waits out (the
        // bounds leave room for a loaded machine).
        let session = lab.session { $0.connections.expectContinue = ExpectContinue(minimumBodySize: 1 << 20, timeout: .seconds(10)) }
        let impatient = lab.session { $0.connections.expectContinue = ExpectContinue(minimumBodySize: 1 << 20, timeout: .milliseconds(300)) }
        let clock = ContinuousClock()
        var started = clock.now
        _ = try await session.send(Self.upload(to: server.url("/collect")))
        #expect(clock.now - started < .seconds(8))
        #expect(server.collected.all.last?.count == Self.size)
        started = clock.now
        _ = try await impatient.send(Self.upload(to: server.url("/collect?ignore-expect")))
        #expect(clock.now - started >= .milliseconds(300))
        #expect(server.collected.all.last?.count == Self.size)
        await impatient.shutdown()

        // A 417 (the expectation not understood on the way): sent again without it, once.
        let refused = try await session.send(Self.upload(to: server.url("/collect?refuse-expect")))
        #expect(refused.statusCode == 200)
        #expect(server.collected.all.last?.count == Self.size)
        let asked = try await session.send(Self.upload(to: server.url("/headers"))).decode([String: String].self)
        #expect(asked["expect"] == "100-continue")
        let small = try await session.send(SecureRequest(.post, url: server.url("/headers"), body: Data("small".utf8))).decode([String: String].self)
        #expect(small["expect"] == nil)
        let multiplexing = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let overHTTP2 = try await session.send(Self.upload(to: multiplexing.url("/headers"))).decode([String: String].self)
        #expect(overHTTP2["expect"] == nil)
        await session.shutdown()
        await server.stop()
        await multiplexing.stop()
    }
}
