#if GRPC
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import NIOCore
import NIOPosix
import NIOSSL
import TransportSecurity
import TransportSecurityNIO

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension HTTP2ClientTransport.Posix {
    /// A transport whose every connection is TLS decided by `verifier` alone: its policy's chain
    /// validation, pins and host check, with no check of swift-nio-ssl's before or after it.
    ///
    /// The connections run the TLS the rest of TransportSecurity runs
    /// (``NIOSSL/TLSConfiguration/transportSecurityClient(identity:minimumTLSVersion:)``), not
    /// grpc-swift's `.tls`, whose settings lead to three traps: setting only its
    /// `customVerificationCallback` leaves `.fullVerification`, under which swift-nio-ssl checks
    /// the host again after the callback (a policy that skips it, or a server known by its SPIFFE
    /// ID, fails); `.noVerification` ignores the callback's rejection; and a client that closes
    /// waits five seconds for a `close_notify` that gRPC's C core and Go servers never send.
    /// The verifier's host is the TLS server name; `config.http2.authority` stays the
    /// `:authority` of the requests.
    ///
    /// ```swift
    /// let verifier = PeerTrustVerifier(evaluator: policy, host: "payments.partner.example")
    /// let transport = try HTTP2ClientTransport.Posix(
    ///     target: .dns(host: "payments.partner.example", port: 443),
    ///     verifiedBy: verifier,
    ///     identity: try ClientIdentity(pkcs12File: "client.p12", passphrase: passphrase)
    /// )
    /// try await withGRPCClient(transport: transport) { client in /* the calls */ }
    /// ```
    ///
    /// A rejected server fails the RPC (`RPCError` code `.unavailable`) before any request is
    /// sent, its `cause` a ``ServerTrustRejection`` carrying the decision (the rule that decided,
    /// the pins seen and expected); `onDecision` is told every decision.
    /// - Parameters:
    ///   - target: Where to connect.
    ///   - verifier: What decides on the server's chain, and the host it stands for.
    ///   - identity: The client certificate and key presented when the server asks for one (any
    ///     key: RSA, ECDSA, Ed25519, or one held in an HSM).
    ///   - config: grpc-swift's transport configuration; a `channelDebuggingCallbacks.onCreateTCPConnection`
    ///     of its own runs after the TLS handler is in place.
    ///   - resolverRegistry: The resolvers of targets.
    ///   - serviceConfig: How connections are made and balanced.
    ///   - eventLoopGroup: Where connections run.
    ///   - onDecision: Called with every decision, before the handshake goes on.
    /// - Throws: grpc-swift's error when no resolver takes `target`; swift-nio-ssl's when the TLS
    ///   context cannot be made.
    public init(
        target: any ResolvableTarget,
        verifiedBy verifier: PeerTrustVerifier,
        identity: ClientIdentity? = nil,
        config: Config = .defaults,
        resolverRegistry: NameResolverRegistry = .defaults,
        serviceConfig: ServiceConfig = ServiceConfig(),
        eventLoopGroup: any EventLoopGroup = .singletonMultiThreadedEventLoopGroup,
        onDecision: (@Sendable (TrustDecision) -> Void)? = nil
    ) throws {
        let tls = try VerifiedClientTLS(verifier: verifier, configuration: .transportSecurityClient(identity: identity), onDecision: onDecision)
        try self.init(target: target, tls: tls, config: config, resolverRegistry: resolverRegistry, serviceConfig: serviceConfig, eventLoopGroup: eventLoopGroup)
    }

    /// A transport as ``init(target:verifiedBy:identity:config:resolverRegistry:serviceConfig:eventLoopGroup:onDecision:)``
    /// presenting the identity `identityFile` holds at each handshake: a client certificate
    /// renewed on disk is presented from the next connection on, without a new transport.
    /// - Parameters:
    ///   - target: Where to connect.
    ///   - verifier: What decides on the server's chain, and the host it stands for.
    ///   - identityFile: The files of the client certificate chain and key.
    ///   - config: grpc-swift's transport configuration.
    ///   - resolverRegistry: The resolvers of targets.
    ///   - serviceConfig: How connections are made and balanced.
    ///   - eventLoopGroup: Where connections run.
    ///   - onDecision: Called with every decision, before the handshake goes on.
    /// - Throws: As the initializer above.
    public init(
        target: any ResolvableTarget,
        verifiedBy verifier: PeerTrustVerifier,
        identityFile: ClientIdentityFile,
        config: Config = .defaults,
        resolverRegistry: NameResolverRegistry = .defaults,
        serviceConfig: ServiceConfig = ServiceConfig(),
        eventLoopGroup: any EventLoopGroup = .singletonMultiThreadedEventLoopGroup,
        onDecision: (@Sendable (TrustDecision) -> Void)? = nil
    ) throws {
        let tls = try VerifiedClientTLS(
            verifier: verifier,
            configuration: .transportSecurityClient(identityProvider: { _ in identityFile.identity }),
            onDecision: onDecision
        )
        try self.init(target: target, tls: tls, config: config, resolverRegistry: resolverRegistry, serviceConfig: serviceConfig, eventLoopGroup: eventLoopGroup)
    }

    private init(
        target: any ResolvableTarget,
        tls: VerifiedClientTLS,
        config: Config,
        resolverRegistry: NameResolverRegistry,
        serviceConfig: ServiceConfig,
        eventLoopGroup: any EventLoopGroup
    ) throws {
        // grpc-swift's `.customSecure`: it adds no TLS of its own and leaves the handler to the
        // connection callback (its documented way to secure a connection otherwise).
        var config = config
        let theirs = config.channelDebuggingCallbacks.onCreateTCPConnection
        config.channelDebuggingCallbacks.onCreateTCPConnection = { channel in
            let installed = tls.install(on: channel)
            guard let theirs else { return installed }
            return installed.flatMap { theirs(channel) }
        }
        try self.init(
            target: target,
            transportSecurity: .customSecure,
            config: config,
            resolverRegistry: resolverRegistry,
            serviceConfig: serviceConfig,
            eventLoopGroup: eventLoopGroup
        )
    }
}
#endif
