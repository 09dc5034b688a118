import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing

@Suite("The connection pool's status")
struct PoolStatusTests {
    let lab = try! TrustLab()

    @Test("HTTP/1.1: connections in use and requests waiting at the per-host limit, then idle; HTTP/2: one shared connection; nothing after shutdown")
    func status() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session { $0.maximumConnectionsPerHost = 2 }
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
}
