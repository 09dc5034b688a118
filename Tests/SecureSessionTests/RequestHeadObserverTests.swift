import Foundation
import NIOConcurrencyHelpers
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

/// `requestHeadObserver`: every request head as the session sent it.
@Suite("Request heads as sent")
struct RequestHeadObserverTests {
    let lab = try! TrustLab()

    /// A session whose observer keeps the heads, and the heads.
    func observedSession(_ configure: @escaping (inout SecureSessionConfiguration) -> Void = { _ in }) -> (SecureSession, NIOLockedValueBox<[SentRequestHead]>) {
        let heads = NIOLockedValueBox<[SentRequestHead]>([])
        let session = lab.session {
            $0.features.requestHeadObserver = { head in heads.withLockedValue { $0.append(head) } }
            configure(&$0)
        }
        return (session, heads)
    }

    @Test("each head of a redirect and of an answered challenge, Host first, with the fields the session added; over HTTP/2 without HTTP/1.1's connection fields", arguments: [false, true])
    func observed(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let (session, heads) = observedSession {
            $0.features.credentialStore.set(.user("alice", password: "wonderland"), for: ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: true, realm: "lab", method: .httpBasic))
        }
        _ = try await session.get(server.url("/redirect?to=/basic"), headers: [("X-Trace", "t-1")])
        let seen = heads.withLockedValue { $0 }
        #expect(seen.map(\.target) == ["/redirect?to=/basic", "/basic", "/basic"])
        #expect(seen.allSatisfy { $0.method == "GET" && $0.httpVersion == (http2 ? "HTTP/2" : "HTTP/1.1") })
        #expect(seen.map(\.url.path) == ["/redirect", "/basic", "/basic"])
        let first = try #require(seen.first)
        #expect(first.headers.first?.name == "Host" && first.headers.first?.value == "127.0.0.1:\(server.port)")
        #expect(first.headers.contains { $0.name == "X-Trace" && $0.value == "t-1" })
        #expect(first.headers.contains { $0.name == "User-Agent" })
        #expect(first.headers.contains { $0.name == "Connection" } == !http2, "HTTP/2 sends no Connection field")
        #expect(!seen[1].headers.contains { $0.name == "Authorization" })
        #expect(seen[2].headers.contains { $0.name == "Authorization" && $0.value.hasPrefix("Basic ") }, "the challenge's answer")
        await session.shutdown()
        await server.stop()
    }

    @Test("a caller's own Host is sent as given, once")
    func callersHost() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let (session, heads) = observedSession()
        _ = try await session.get(server.url("/hello"), headers: [("Accept", "*/*"), ("Host", "127.0.0.1:\(server.port)")])
        let fields = try #require(heads.withLockedValue { $0.first }).headers
        #expect(fields.filter { $0.name.lowercased() == "host" }.count == 1)
        #expect(fields.first?.name == "Accept")
        await session.shutdown()
        await server.stop()
    }

    @Test("a large body's Expect: 100-continue is in the head as sent over HTTP/1.1, not over HTTP/2", arguments: [false, true])
    func expectation(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let (session, heads) = observedSession { $0.connections.expectContinue = ExpectContinue(minimumBodySize: 1024) }
        _ = try await session.post(server.url("/echo"), body: Data(count: 4096))
        let fields = try #require(heads.withLockedValue { $0.first }).headers
        #expect(fields.contains { $0.name == "Expect" && $0.value == "100-continue" } == !http2)
        await session.shutdown()
        await server.stop()
    }
}
