import Foundation
import SecureSession
import Testing
import TransportSecurity
import TransportSecurityNIO
import Vapor

@Suite("Vapor")
struct VaporTests {
    @Test("a Vapor server requiring client certificates: the verifier lets the checkout workload in, whose route reads its SPIFFE ID from the validated path; the batch workload is refused at the handshake, before any route")
    func mutualTLS() async throws {
        let workloads = try Workloads()
        let visits = Visits()
        let app = try await Application.make(.testing)
        app.http.server.configuration.tlsConfiguration = .transportSecurityServer(identity: try workloads.serverIdentity, clientCertificates: .required)
        app.http.server.configuration.customCertificateVerifyCallbackWithMetadata = try workloads.verifier.makeVerificationCallbackWithMetadata()
        app.get("whoami") { request -> String in
            visits.record()
            guard let client = try request.peerCertificateChain?.peerIdentity() else { throw Abort(.unauthorized) }
            return client.spiffeID?.description ?? "no SPIFFE ID"
        }
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        let port = try #require(app.http.server.shared.localAddress?.port)

        let checkout = await workloads.whoami(port: port, as: workloads.checkout)
        #expect(try checkout.get() == "spiffe://payments.example/ns/checkout/sa/api")
        let batch = await workloads.whoami(port: port, as: workloads.batch)
        #expect(throws: SecureSessionError.self) { try batch.get() }
        #expect(visits.total == 1)

        await app.server.shutdown()
        try await app.asyncShutdown()
    }
}
