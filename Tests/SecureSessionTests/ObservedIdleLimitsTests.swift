import Foundation
import NIOCore
import PKIBuilder
import TestServers
import Testing
import TransportSecurity

@testable import SecureSession

@Suite("Servers that close idle connections without saying when: the session learns how long they wait, and gives their connections up a second before")
struct ObservedIdleLimitsTests {
    let lab = try! TrustLab()

    @Test("a second less than the server was last seen to wait, for an hour; zero or less when it waited a second or less; nothing for a server never seen")
    func limits() {
        let limits = ObservedIdleLimits()
        let server = HostAndPort(host: "api.example", port: 443)
        let now = ContinuousClock.now
        #expect(limits.clientIdleLimit(for: server, now: now) == nil)
        limits.noteClosedWhileIdle(server, after: .seconds(5), now: now)
        #expect(limits.clientIdleLimit(for: server, now: now) == .seconds(4))
        #expect(limits.clientIdleLimit(for: HostAndPort(host: "api.example", port: 8443), now: now) == nil, "another port is another server")
        #expect(limits.clientIdleLimit(for: server, now: now + .seconds(3_599)) == .seconds(4))
        #expect(limits.clientIdleLimit(for: server, now: now + ObservedIdleLimits.keptFor) == nil, "forgotten after an hour")
        limits.noteClosedWhileIdle(server, after: .milliseconds(800), now: now)
        #expect(limits.clientIdleLimit(for: server, now: now)! <= .zero, "the latest observation replaces the one before")
    }

    @Test("after the server closed an idle connection at 1.5 s, the session's later connections wait at most 0.5 s in the pool (60 s otherwise); the session's own expiry teaches nothing")
    func learnsFromIdleClose() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), idleTimeout: .milliseconds(1_500))
        let session = lab.session { $0.httpVersions = .http1Only }
        _ = try await session.get(server.url("/hello"))
        try await Task.sleep(for: .milliseconds(2_000))
        #expect(server.connections.total == 1)
        #expect(try await session.get(server.url("/hello")).timing.reusedConnection == false, "the server closed it")
        #expect(try await session.get(server.url("/hello")).timing.reusedConnection, "reused within the learnt limit")
        try await Task.sleep(for: .milliseconds(900))
        #expect(session.poolStatus().first?.idle ?? 0 == 0, "given up at 0.5 s, before the server's 1.5 s")
        // Expired by the session after 0.5 s: the limit stays what the server taught.
        _ = try await session.get(server.url("/hello"))
        #expect(try await session.get(server.url("/hello")).timing.reusedConnection)
        await session.shutdown()
        await server.stop()
    }

    @Test("a server seen closing idle connections after a second: its connections wait in the pool a few milliseconds at most; POSTs sent as its limit runs out all succeed, none on a kept connection")
    func noReuseForShortLimits() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), idleTimeout: .milliseconds(1_000))
        let session = lab.session { $0.httpVersions = .http1Only }
        _ = try await session.get(server.url("/hello"))
        try await Task.sleep(for: .milliseconds(1_300))
        let (failures, reused) = try await postsAtOneSecondIdleLimit(session, to: server.url("/echo"), steps: 4)
        #expect(reused == 0)
        #expect(failures.isEmpty, "\(failures)")
        await session.shutdown()
        await server.stop()
    }

    @Test("uvicorn (FastAPI's server) closes idle connections after --timeout-keep-alive without a Keep-Alive field: once seen, POSTs sent as its limit runs out all succeed (before, one in thirty was lost with its connection)")
    func uvicorn() async throws {
        let server = try UvicornServer(chain: lab.loopbackChain(), keepAliveTimeout: 1)
        defer { server.stop() }
        let session = lab.session()
        let first = try await session.post(server.url("/orders"), body: Data("first".utf8))
        #expect(first.text == "POST /orders 5")
        #expect(first.header("Keep-Alive") == nil, "uvicorn does not say how long it waits")
        try await Task.sleep(for: .milliseconds(1_500))
        let (failures, reused) = try await postsAtOneSecondIdleLimit(session, to: server.url("/orders"), steps: 6)
        #expect(reused == 0)
        #expect(failures.isEmpty, "\(failures)")
        await session.shutdown()
    }
}
