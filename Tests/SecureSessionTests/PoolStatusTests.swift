import Foundation
import PKIBuilder
import TestServers
import Testing
import TransportSecurity

@testable import SecureSession

@Suite("The connection pool's status")
struct PoolStatusTests {
    let lab = try! TrustLab()

    @Test("HTTP/1.1: connections in use and requests waiting at the per-host limit, then idle; HTTP/2: one shared connection; nothing after shutdown")
    func status() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session { $0.connections.maximumPerHost = 2 }
        #expect(session.poolStatus().isEmpty)
        let slow = (0..<3).map { _ in Task { try await session.get(server.url("/delay/1500")) } }
        let name = "https://127.0.0.1:\(server.port)"
        var busy: [PoolStatus] = []
        for _ in 0..<300 {
            busy = session.poolStatus()
            if busy == [PoolStatus(server: name, inUse: 2, waitingRequests: 1)] { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(busy == [PoolStatus(server: name, inUse: 2, waitingRequests: 1)], "\(busy)")
        for request in slow { _ = try await request.value }
        #expect(session.poolStatus() == [PoolStatus(server: name, idle: 2)])
        #expect(session.poolStatus().first?.description == "\(name): 2 idle, 0 in use, 0 HTTP/2, 0 connecting, 0 waiting")

        let multiplexing = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        _ = try await session.get(multiplexing.url("/hello"))
        #expect(session.poolStatus().contains(PoolStatus(server: "https://127.0.0.1:\(multiplexing.port)", multiplexed: 1)))
        await session.shutdown()
        #expect(session.poolStatus().isEmpty)
        await server.stop()
        await multiplexing.stop()
    }

    @Test("an IPv6 server is named with its address in brackets, as in its URL")
    func ipv6ServerName() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session(InsecureDisabledTrustEvaluator()) {
            $0.connections.addressOverrides = [AddressOverride(host: "::1", port: server.port, address: "127.0.0.1")]
        }
        #expect(try await session.get(URL(string: "https://[::1]:\(server.port)/hello")!).text == "hello")
        #expect(session.poolStatus().map(\.server) == ["https://[::1]:\(server.port)"])
        await session.shutdown()
        await server.stop()
    }
}

/// An object whose release a test watches through a weak reference.
private final class Watched: Sendable {}

@Suite("What the connection pool remembers")
struct PoolMemoryTests {
    let lab = try! TrustLab()

    @Test("a request's own challenge handler, and what it captures, is released with the request's connection, over HTTP/1.1 and HTTP/2", arguments: [false, true])
    func requestHandlersReleased(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let session = lab.session()
        weak var released: Watched?
        for _ in 0..<3 {
            let watched = Watched()
            released = watched
            var request = SecureRequest(url: server.url("/hello"))
            request.challengeHandler = { _ in
                _ = watched
                return .performDefaultHandling
            }
            #expect(try await session.send(request).text == "hello")
        }
        for _ in 0..<100 where released != nil { try await Task.sleep(for: .milliseconds(20)) }
        #expect(released == nil, "the pool still holds the last request's handler")
        await session.shutdown()
        await server.stop()
    }

    @Test("a session that talks to ever new hosts keeps nothing of those whose connections closed, but whether a few hundred speak HTTP/1.1")
    func closedHostsForgotten() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let hosts = (0..<300).map { "host\($0).pool.test" }
        let session = lab.session(InsecureDisabledTrustEvaluator()) {
            $0.connections.addressOverrides = hosts.map { AddressOverride(host: $0, port: server.port, address: "127.0.0.1") }
            $0.connections.idleTimeout = .milliseconds(20)
        }
        for host in hosts {
            #expect(try await session.get(URL(string: "https://\(host):\(server.port)/hello")!).text == "hello")
        }
        for _ in 0..<100 where !session.poolStatus().isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        #expect(session.poolStatus().isEmpty, "every idle connection expired")
        #expect(session.rememberedPoolKeyCount <= ConnectionPool.rememberedHTTP1Servers)
        await session.shutdown()
        await server.stop()
    }
}
