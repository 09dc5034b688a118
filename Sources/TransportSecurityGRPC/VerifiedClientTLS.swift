#if GRPC
import NIOCore
import NIOSSL
import TransportSecurity
import TransportSecurityNIO

/// The TLS a verified gRPC client connection runs: swift-nio-ssl's client handler with the
/// configuration the rest of TransportSecurity uses, decided by a ``PeerTrustVerifier``, put in
/// front of grpc-swift's HTTP/2 handlers of each new connection.
struct VerifiedClientTLS: Sendable {
    let context: NIOSSLContext
    let verifier: PeerTrustVerifier
    let onDecision: (@Sendable (TrustDecision) -> Void)?

    /// - Throws: swift-nio-ssl's error when the configuration makes no TLS context.
    init(verifier: PeerTrustVerifier, configuration: TLSConfiguration, onDecision: (@Sendable (TrustDecision) -> Void)?) throws {
        var configuration = configuration
        // gRPC runs over HTTP/2 only, which forbids renegotiation (RFC 9113, 9.2.1).
        configuration.applicationProtocols = ["grpc-exp", "h2"]
        configuration.renegotiationSupport = .none
        context = try NIOSSLContext(configuration: configuration)
        self.verifier = verifier
        self.onDecision = onDecision
    }

    /// Puts the TLS handler first in `channel`'s pipeline, the ``TrustRejectionHandler`` right
    /// behind it (grpc-swift's channel initializer has added its HTTP/2 handlers; the connection
    /// is not yet made).
    func install(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            let rejection = TrustRejectionHandler(host: verifier.host)
            let tls = try NIOSSLClientHandler(
                context: context,
                serverHostname: verifier.serverNameIndication,
                customVerificationCallbackWithMetadata: verifier.makeVerificationCallbackWithMetadata { [onDecision] decision in
                    rejection.record(decision)
                    onDecision?(decision)
                }
            )
            try channel.pipeline.syncOperations.addHandlers([tls, rejection], position: .first)
        }
    }
}
#endif
