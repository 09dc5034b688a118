import Foundation
import PKIBuilder
import SecureSession
import Testing
import TestServers
import TransportSecurity

/// Every way a request can fail part-way closes the connection it could not finish, rather than
/// leaving the socket open beside the pool: counted from the server's side, which sees a
/// connection close only when the client closes its socket (the test server never closes one
/// on its own).
@Suite("Connections a failed request leaves behind")
struct ConnectionReleaseTests {
    let lab = try! TrustLab()

    /// A GET of `url` given up after `timeout`.
    private func request(_ url: URL, timeout: Duration) -> SecureRequest {
        var request = SecureRequest(url: url)
        request.timeout = timeout
        return request
    }

    /// Runs `request`, which must fail, and returns its error.
    private func failure(_ request: () async throws -> Void) async -> (any Error)? {
        guard case .failure(let error) = await Result(catching: request) else { return nil }
        return error
    }

    @Test("over HTTP/1.1: a timeout waiting for the answer or in the middle of the body, a cancelled task, a body over the limit, a body dropped unread and a rejected server each close their connection; the next request gets a new one; shutdown closes the idle one")
    func http1() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let session = lab.session { $0.responses.maximumBodySize = 64 * 1024 }

        _ = try await session.get(server.url("/hello"))
        try await expectOpenConnections(1, on: server, after: "a response (the connection is kept for the next request)")

        let waiting = await failure { _ = try await session.send(request(server.url("/never"), timeout: .milliseconds(300))) }
        #expect(waiting.map { "\($0)" }?.contains("timed out") == true, "\(String(describing: waiting))")
        try await expectOpenConnections(0, on: server, after: "a timeout waiting for the answer")

        let stalled = await failure { _ = try await session.send(request(server.url("/stalled-body"), timeout: .milliseconds(300))) }
        #expect(stalled.map { "\($0)" }?.contains("timed out") == true, "\(String(describing: stalled))")
        try await expectOpenConnections(0, on: server, after: "a timeout in the middle of the body")

        let accepted = server.connections.total
        let cancelled = Task { try await session.get(server.url("/never")) }
        while server.connections.total == accepted { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(200))  // the request is sent
        cancelled.cancel()
        _ = await cancelled.result
        try await expectOpenConnections(0, on: server, after: "a cancelled request")

        let endless = await failure { _ = try await session.get(server.url("/endless")) }
        #expect(endless != nil)
        try await expectOpenConnections(0, on: server, after: "a body over the in-memory limit")

        do {
            let (head, body) = try await session.bytes(for: SecureRequest(url: server.url("/endless")))
            #expect(head.statusCode == 200)
            _ = body
        }
        try await expectOpenConnections(0, on: server, after: "a body dropped unread")

        let rejecting = lab.session(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.rogueRoot.der]))
        let rejected = await failure { _ = try await rejecting.get(server.url("/hello")) }
        #expect(rejected.map { if case .trustRejected? = $0.sessionFailureReason { true } else { false } } == true, "\(String(describing: rejected))")
        try await expectOpenConnections(0, on: server, after: "a rejected server")
        await rejecting.shutdown()

        let before = server.connections.total
        #expect(try await session.get(server.url("/hello")).text == "hello")
        #expect(server.connections.total == before + 1)
        try await expectOpenConnections(1, on: server, after: "a response after the failures")
        await session.shutdown()
        try await expectOpenConnections(0, on: server, after: "shutdown")
    }

    @Test("over HTTP/2 a failed request resets its own stream and the one connection goes on, whatever the failure; shutdown closes it")
    func http2() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        defer { Task { await server.stop() } }
        let session = lab.session { $0.responses.maximumBodySize = 64 * 1024 }

        _ = try await session.get(server.url("/hello"))
        _ = await failure { _ = try await session.send(request(server.url("/never"), timeout: .milliseconds(300))) }
        _ = await failure { _ = try await session.send(request(server.url("/stalled-body"), timeout: .milliseconds(300))) }
        _ = await failure { _ = try await session.get(server.url("/endless")) }
        let cancelled = Task { try await session.get(server.url("/never")) }
        try await Task.sleep(for: .milliseconds(200))  // the request is sent
        cancelled.cancel()
        _ = await cancelled.result
        do { _ = try await session.bytes(for: SecureRequest(url: server.url("/endless"))) }

        #expect(try await session.get(server.url("/hello")).text == "hello")
        #expect(server.connections.total == 1)
        try await expectOpenConnections(1, on: server, after: "the failed requests")
        await session.shutdown()
        try await expectOpenConnections(0, on: server, after: "shutdown")
    }
}
