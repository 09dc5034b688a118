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

    @Test("a limit is believed once two closes a second or more apart agree on it; then a second less than it, for an hour; closes of one event (a restart) confirm nothing; a new limit needs two agreeing closes too")
    func limits() {
        let limits = ObservedIdleLimits()
        let server = HostAndPort(host: "api.example", port: 443)
        let start = ContinuousClock.now
        #expect(limits.clientIdleLimit(for: server, now: start) == nil)
        limits.noteClosedWhileIdle(server, after: .seconds(5), now: start)
        #expect(limits.clientIdleLimit(for: server, now: start) == nil, "one close is not believed")
        limits.noteClosedWhileIdle(server, after: .milliseconds(5_100), now: start + .seconds(20))
        #expect(limits.clientIdleLimit(for: server, now: start + .seconds(20)) == .seconds(4), "two agree: the shorter, less a second")
        #expect(limits.clientIdleLimit(for: HostAndPort(host: "api.example", port: 8443), now: start) == nil, "another port is another server")
        #expect(limits.clientIdleLimit(for: server, now: start + .seconds(20) + ObservedIdleLimits.keptFor) == nil, "forgotten after an hour")

        // A restart: every idle connection closed at once, after whatever each had waited.
        let restarting = HostAndPort(host: "restarting.example", port: 443)
        for (offset, idle) in [(0, 300), (2, 310), (5, 2_000), (9, 2_050)] {
            limits.noteClosedWhileIdle(restarting, after: .milliseconds(idle), now: start + .milliseconds(offset))
        }
        #expect(limits.clientIdleLimit(for: restarting, now: start + .seconds(1)) == nil, "one event confirms nothing")

        // A believed limit stays while a different close waits for its second.
        limits.noteClosedWhileIdle(server, after: .seconds(2), now: start + .seconds(40))
        #expect(limits.clientIdleLimit(for: server, now: start + .seconds(40)) == .seconds(4))
        limits.noteClosedWhileIdle(server, after: .milliseconds(2_050), now: start + .seconds(60))
        #expect(limits.clientIdleLimit(for: server, now: start + .seconds(60)) == .seconds(1), "the server's new limit, once two closes agree")
        limits.noteClosedWhileIdle(server, after: .milliseconds(800), now: start + .seconds(70))
        limits.noteClosedWhileIdle(server, after: .milliseconds(850), now: start + .seconds(80))
        #expect(limits.clientIdleLimit(for: server, now: start + .seconds(80))! <= .zero, "a second or less: no reuse")
    }

    @Test("after the server closed idle connections at 1.5 s twice, the session's later connections wait at most 0.5 s in the pool (60 s otherwise); the session's own expiry teaches nothing")
    func learnsFromIdleClose() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), idleTimeout: .milliseconds(1_500))
        let session = lab.session { $0.connections.httpVersions = .http1Only }
        _ = try await session.get(server.url("/hello"))
        try await Task.sleep(for: .milliseconds(2_000))
        #expect(server.connections.total == 1)
        #expect(try await session.get(server.url("/hello")).timing.reusedConnection == false, "the server closed it")
        // Believed once a second close agrees.
        try await Task.sleep(for: .milliseconds(2_000))
        #expect(server.connections.total == 2)
        #expect(try await session.get(server.url("/hello")).timing.reusedConnection == false, "the server closed it again")
        #expect(try await session.get(server.url("/hello")).timing.reusedConnection, "reused within the learnt limit")
        try await Task.sleep(for: .milliseconds(900))
        #expect(session.poolStatus().first?.idle ?? 0 == 0, "given up at 0.5 s, before the server's 1.5 s")
        // Expired by the session after 0.5 s: the limit stays what the server taught.
        _ = try await session.get(server.url("/hello"))
        #expect(try await session.get(server.url("/hello")).timing.reusedConnection)
        await session.shutdown()
        await server.stop()
    }

    @Test("a server seen closing idle connections after a second, twice: its connections wait in the pool a few milliseconds at most; POSTs sent as its limit runs out all succeed, none on a kept connection")
    func noReuseForShortLimits() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), idleTimeout: .milliseconds(1_000))
        let session = lab.session { $0.connections.httpVersions = .http1Only }
        for _ in 0..<2 {
            _ = try await session.get(server.url("/hello"))
            try await Task.sleep(for: .milliseconds(1_300))
        }
        let (failures, reused) = try await postsAtOneSecondIdleLimit(session, to: server.url("/echo"), steps: 4)
        #expect(reused == 0)
        #expect(failures.isEmpty, "\(failures)")
        await session.shutdown()
        await server.stop()
    }

    @Test("uvicorn (FastAPI's server) closes idle connections after --timeout-keep-alive without a Keep-Alive field: once seen twice, POSTs sent as its limit runs out all succeed (before, one in thirty was lost with its connection)")
    func uvicorn() async throws {
        let server = try UvicornServer(chain: lab.loopbackChain(), keepAliveTimeout: 1)
        defer { server.stop() }
        let session = lab.session()
        let first = try await session.post(server.url("/orders"), body: Data("first".utf8))
        #expect(first.text == "POST /orders 5")
        #expect(first.header("Keep-Alive") == nil, "uvicorn does not say how long it waits")
        try await Task.sleep(for: .milliseconds(1_500))
        _ = try await session.post(server.url("/orders"), body: Data("again".utf8))
        try await Task.sleep(for: .milliseconds(1_500))
        let (failures, reused) = try await postsAtOneSecondIdleLimit(session, to: server.url("/orders"), steps: 6)
        #expect(reused == 0)
        #expect(failures.isEmpty, "\(failures)")
        await session.shutdown()
    }
}
