import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import TransportSecurityNIO

/// The two ways a client verifies the bench server in the handshake benchmarks.
enum HandshakeClient: Sendable {
    /// swift-nio-ssl's default verification: BoringSSL builds and checks the chain to the root,
    /// then the IP address.
    case nioSSLDefault(NIOSSLContext)
    /// TransportSecurity's bridge: the full policy (validation and pins) through a
    /// `PeerTrustVerifier`, with its decision cache.
    case transportSecurity(NIOSSLContext, PeerTrustVerifier)

    func makeHandler() throws -> NIOSSLClientHandler {
        switch self {
        case .nioSSLDefault(let context):
            return try NIOSSLClientHandler(context: context, serverHostname: nil)
        case .transportSecurity(let context, let verifier):
            return try NIOSSLClientHandler(
                context: context,
                serverHostname: verifier.serverNameIndication,
                customVerificationCallback: verifier.makeVerificationCallback(onDecision: { _ in })
            )
        }
    }

    /// Connects to 127.0.0.1:`port`, completes a TLS handshake and closes the connection.
    func handshake(port: Int) async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let done = loop.makePromise(of: Void.self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: loop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(makeHandler())
                        try channel.pipeline.syncOperations.addHandler(HandshakeCompletion(promise: done))
                    }
                }
                .connect(host: "127.0.0.1", port: port)
                .get()
        } catch {
            done.fail(error)
            throw error
        }
        try await done.futureResult.get()
        try await channel.close()
    }

    /// `concurrency` handshakes at once.
    func handshakes(port: Int, concurrency: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency { group.addTask { try await handshake(port: port) } }
            try await group.waitForAll()
        }
    }
}

/// Completes a promise when the TLS handshake completes, fails it when the channel closes first.
private final class HandshakeCompletion: ChannelInboundHandler {
    typealias InboundIn = NIOAny
    private let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { promise.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
    }
}
