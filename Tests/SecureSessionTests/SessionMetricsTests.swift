import Foundation
import MetricsTestKit
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

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

    @Test("the offered client certificate's expiry as a gauge: set by connections that offer it, successful or refused, and moved on by a renewal")
    func clientCertificateExpiry() async throws {
        let files = try ClientCertificateLab()
        var profile = CertificateProfile.client("alice")
        profile.notAfterOffset = 20 * 86_400
        let shortLived = try files.lab.pki.issue(profile, by: files.clientCA)
        try files.replace("client.crt", with: Data(shortLived.pemString.utf8))
        try files.replace("client.key", with: Data(shortLived.privateKeyPEM.utf8))
        let identityFile = try ClientIdentityFile(certificateFile: files.path("client.crt"), privateKeyFile: files.path("client.key"), checkInterval: .zero)
        let metrics = TestMetrics()
        let server = try await HTTPTestServer(chain: files.lab.loopbackChain(), clientVerifier: .clients(of: files.clientCA, at: files.lab.pki.now))
        let session = files.lab.session(SecurityPolicy.default) {
            $0.metricsFactory = metrics
            $0.tls.clientIdentityFile = identityFile
        }
        _ = try await session.get(server.url("/hello"))
        let label = "secure_session_client_certificate_expiry_timestamp_seconds"
        func expiry() throws -> Double? {
            try metrics.expectRecorder(label, [("subject", "CN=alice")]).lastValue
        }
        #expect(try expiry() == shortLived.certificate.notValidAfter.timeIntervalSince1970)
        // Renewed: the next connection offers the new certificate, and moves the gauge on.
        try files.replace("client.crt", with: Data(files.alice.pemString.utf8))
        try files.replace("client.key", with: Data(files.alice.privateKeyPEM.utf8))
        _ = try await session.get(server.url("/hello"))
        #expect(try expiry() == files.alice.certificate.notValidAfter.timeIntervalSince1970)
        // An expired certificate put back by mistake: refused, and the gauge shows it.
        var expiredProfile = CertificateProfile.client("alice")
        expiredProfile.notBeforeOffset = -30 * 86_400
        expiredProfile.notAfterOffset = -86_400
        let expired = try files.lab.pki.issue(expiredProfile, by: files.clientCA)
        try files.replace("client.crt", with: Data(expired.pemString.utf8))
        try files.replace("client.key", with: Data(expired.privateKeyPEM.utf8))
        await #expect(throws: SecureSessionError.self) { _ = try await session.get(server.url("/hello")) }
        #expect(try expiry() == expired.certificate.notValidAfter.timeIntervalSince1970)
        await session.shutdown()
        await server.stop()
        // One gauge: the renewals kept the subject.
        #expect(metrics.recorders(label: label).count == 1)
    }

    @Test("the server certificate's expiry as a gauge by server: the earliest notAfter of the path its last trusted connection was validated through, moved on when the server renews; the server's keys counted by pin; a rejected server sets none")
    func serverCertificateExpiry() async throws {
        let metrics = TestMetrics()
        let chain = try lab.loopbackChain()
        let server = try await HTTPTestServer(chain: chain)
        let impostor = try await HTTPTestServer(chain: lab.loopbackChain(issuedBy: lab.proxyRoot))
        let pinned = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der])
        let session = lab.session(pinned) { $0.metricsFactory = metrics }
        _ = try await session.get(server.url("/hello"))
        let label = "secure_session_server_certificate_expiry_timestamp_seconds"
        let origin = "https://127.0.0.1:\(server.port)"
        let path = chain.map(\.certificate) + [lab.root.certificate]
        #expect(try metrics.expectRecorder(label, [("server", origin)]).lastValue == path.map(\.notValidAfter).min()!.timeIntervalSince1970)

        // Renewed with a leaf that expires first: a new connection moves the gauge on.
        var profile = CertificateProfile.server("loopback", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
        profile.notAfterOffset = 10 * 86_400
        let renewed = try lab.pki.issue(profile, by: lab.intermediate)
        try server.rotate(to: [renewed, lab.intermediate])
        let another = lab.session(pinned) { $0.metricsFactory = metrics }
        _ = try await another.get(server.url("/hello"))
        #expect(try metrics.expectRecorder(label, [("server", origin)]).lastValue == renewed.certificate.notValidAfter.timeIntervalSince1970)

        // The server's move to a new key shows in the keys counter, by its pin.
        let keys = "secure_session_server_keys_total"
        #expect(metrics.counterTotal(label: keys, dimensions: [("server", origin), ("spki", chain[0].der.spkiPin.description)]) == 1)
        #expect(metrics.counterTotal(label: keys, dimensions: [("server", origin), ("spki", renewed.der.spkiPin.description)]) == 1)

        await #expect(throws: SecureSessionError.self) { _ = try await session.get(impostor.url("/hello")) }
        #expect(metrics.recorders(label: label).count == 1, "the rejected server has no gauge")
        #expect(metrics.counterTotal(label: keys) == 2, "a rejected server's key is not counted")
        await session.shutdown()
        await another.shutdown()
        await server.stop()
        await impostor.stop()
    }
}
