import Foundation
import MetricsTestKit
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

@Suite("Metrics (swift-metrics)")
struct SessionMetricsTests {
    let lab = try! TrustLab()

    @Test("requests by status or error, their durations, trust decisions by outcome and rule, connections by protocol")
    func counted() async throws {
        let metrics = TestMetrics()
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let impostor = try await HTTPTestServer(chain: lab.loopbackChain(issuedBy: lab.proxyRoot))
        let session = lab.session(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der])) { $0.metricsFactory = metrics }
        _ = try await session.get(server.url("/hello"))
        _ = try await session.get(server.url("/json"))
        await #expect(throws: SecureSessionError.self) { _ = try await session.get(server.url("/status/404")) }
        await #expect(throws: SecureSessionError.self) { _ = try await session.get(impostor.url("/hello")) }
        var posted = SecureRequest(.post, url: server.url("/echo"), body: Data("x".utf8))
        posted.validation = ResponseValidation.none
        _ = try await session.send(posted)

        let requests = "secure_session_requests_total"
        #expect(metrics.counterTotal(label: requests, dimensions: [("method", "GET"), ("status", "200")]) == 2)
        #expect(metrics.counterTotal(label: requests, dimensions: [("method", "GET"), ("error", "unacceptable_status"), ("status", "404")]) == 1)
        #expect(metrics.counterTotal(label: requests, dimensions: [("method", "GET"), ("error", "trust_rejected")]) == 1)
        #expect(metrics.counterTotal(label: requests, dimensions: [("method", "POST"), ("status", "200")]) == 1)
        #expect(metrics.counterTotal(label: requests) == 5)
        let durations = metrics.timers(label: "secure_session_request_duration_seconds")
        #expect(durations.flatMap(\.values).count == 5)
        #expect(durations.flatMap(\.values).allSatisfy { $0 > 0 })

        let decisions = "secure_session_trust_decisions_total"
        #expect(metrics.counterTotal(label: decisions, dimensions: [("outcome", "trusted")]) == 1)
        let rejected = metrics.counters(label: decisions, dimensions: [("outcome", "rejected")])
        #expect(rejected.map(\.totalValue).reduce(0, +) == 1)
        #expect(rejected.first?.dimensions.first { $0.0 == "decided_by" }?.1.isEmpty == false)
        // One HTTP/2 connection carried the four requests to the server.
        #expect(metrics.counterTotal(label: "secure_session_connections_total", dimensions: [("protocol", "h2")]) == 1)
        #expect(metrics.counterTotal(label: "secure_session_connections_total") == 1)
        await session.shutdown()
        await server.stop()
        await impostor.stop()
    }
}
