import Foundation
import Hummingbird
import HummingbirdTLS
import NIOCore
import NIOSSL
import ServiceLifecycle
import SecureSession
import Testing
import TransportSecurity
import TransportSecurityNIO

/// A request context that keeps the connection's channel, where the TLS handler knows the
/// client's certificate.
struct ChannelRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }

    /// Who the client is: the certificate it presented, which the verifier admitted (the
    /// connection exists only then).
    func peerIdentity() async throws -> PeerIdentity? {
        guard let certificate = try await channel.nioSSL_peerCertificate().get() else { return nil }
        return try PeerIdentity(certificate: DERCertificate(derBytes: certificate.toDERBytes()))
    }
}

@Suite("Hummingbird")
struct HummingbirdTests {
    @Test("a Hummingbird server requiring client certificates (HummingbirdTLS with the verifier's callback): the checkout workload gets in and its route reads its SPIFFE ID; the batch workload is refused at the handshake, before any route")
    func mutualTLS() async throws {
        let workloads = try Workloads()
        let visits = Visits()
        let router = Router(context: ChannelRequestContext.self)
        router.get("whoami") { _, context -> String in
            visits.record()
            guard let client = try await context.peerIdentity() else { throw HTTPError(.unauthorized) }
            return client.spiffeID?.description ?? "no SPIFFE ID"
        }
        let tls = TLSConfiguration.transportSecurityServer(identity: try workloads.serverIdentity, clientCertificates: .required)
        let (ports, portFound) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            server: try .tls(.http1(), configuration: TLSChannelConfiguration(tlsConfiguration: tls, customVerificationCallback: try workloads.verifier.makeVerificationCallback())),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portFound.yield(channel.localAddress?.port ?? 0) }
        )
        let services = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: app.logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())

            let checkout = await workloads.whoami(port: port, as: workloads.checkout)
            #expect(try checkout.get() == "spiffe://payments.example/ns/checkout/sa/api")
            let batch = await workloads.whoami(port: port, as: workloads.batch)
            #expect(throws: SecureSessionError.self) { try batch.get() }
            #expect(visits.total == 1)
            await services.triggerGracefulShutdown()
        }
    }
}
