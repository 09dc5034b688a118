import Hummingbird
import HummingbirdTLS
import NIOSSL
import SecureSession
import TransportSecurity
import TransportSecurityNIO
import Vapor

// README.md's example of Vapor and Hummingbird, between `example begin` and `example end` as
// the README shows it, so that this package's build compiles it (TransportSecurity's
// DocumentationExamplesTests keep the two the same). Never called.
func readmeServerFrameworksExample(meshCA: DERCertificate, serverIdentity: ClientIdentity, app: Vapor.Application, router: Hummingbird.Router<ChannelRequestContext>) throws {
    // example begin
    let verifier = PeerTrustVerifier(
        evaluator: ClientCertificateEvaluator(clientCAs: [meshCA], allowedNames: [try PeerNamePattern("spiffe://payments.example/ns/checkout/*")]),
        host: "clients"
    )
    let tls = TLSConfiguration.transportSecurityServer(identity: serverIdentity, clientCertificates: .required)

    // Vapor: each request has the validated path; `try req.peerCertificateChain?.peerIdentity()` in a route.
    app.http.server.configuration.tlsConfiguration = tls
    app.http.server.configuration.customCertificateVerifyCallbackWithMetadata = verifier.makeVerificationCallbackWithMetadata()

    // Hummingbird (HummingbirdTLS): the plain callback; a route reads the certificate the verifier
    // admitted from the connection's channel (a RequestContext that keeps `source.channel`):
    // `try await channel.nioSSL_peerCertificate().get()`.
    let server = Hummingbird.Application(router: router, server: try .tls(.http1(), configuration: TLSChannelConfiguration(
        tlsConfiguration: tls, customVerificationCallback: verifier.makeVerificationCallback())))
    // example end
    _ = server
}

// The guide's example of one session for a Vapor or a Hummingbird application (SecureSession's
// SessionGuide.md). Never called.
func sessionGuideServerFrameworksExample(partnerPins: PublicKeysTrustEvaluator, app: Vapor.Application, router: Hummingbird.Router<BasicRequestContext>) {
    // example begin
    // Hummingbird: the application stops its server first, then the session.
    let partner = SecureSession(configuration: SecureSessionConfiguration(tls: .init(trustEvaluator: partnerPins)))
    let hummingbird = Hummingbird.Application(router: router, services: [partner])

    // Vapor: `req.application.storage[PartnerSessionKey.self]!` in a route.
    struct PartnerSessionKey: StorageKey { typealias Value = SecureSession }
    struct PartnerSessionShutdown: LifecycleHandler {
        let session: SecureSession
        func shutdownAsync(_ application: Vapor.Application) async { await session.shutdown() }
    }
    app.storage[PartnerSessionKey.self] = partner
    app.lifecycle.use(PartnerSessionShutdown(session: partner))
    // example end
    _ = hummingbird
}
