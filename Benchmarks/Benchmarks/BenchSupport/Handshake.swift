import LabServers
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import TransportSecurity
import TransportSecurityNIO

/// The handshake benchmarks of one chain shape: its PKI, its server (started on first use, kept
/// for the whole run) and the clients compared against it.
public final class HandshakeScenario: Sendable {
    public let pki: BenchPKI
    /// swift-nio-ssl's default verification; TransportSecurity's full policy (validation and a
    /// pinned root key) with a warm decision cache; the same policy with no cache.
    public let clients: [HandshakeClient]
    private let server = NIOLockedValueBox<LabHTTPSServer?>(nil)

    public init(shape: ChainShape) throws {
        pki = try BenchPKI(shape: shape)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([pki.rootForNIO])
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [pki.root.der])
        let store = TrustStore([pki.root.der], origin: "bench root")
        let transportSecurity = try NIOSSLContext(configuration: .transportSecurityClient())
        func verifier(_ cache: DecisionCache?) -> PeerTrustVerifier {
            PeerTrustVerifier(evaluator: policy, host: "127.0.0.1", systemStore: store, cache: cache)
        }
        clients = [
            .nioSSLDefault(try NIOSSLContext(configuration: tls)),
            .transportSecurity(transportSecurity, verifier(DecisionCache()), label: "TransportSecurity full policy, warm"),
            .transportSecurity(transportSecurity, verifier(nil), label: "TransportSecurity full policy, cold (no cache)"),
        ]
    }

    /// The port of this shape's server, started by the first call.
    public func port() async throws -> Int {
        if let running = server.withLockedValue({ $0 }) { return running.port }
        let started = try await startBenchServer(pki: pki)
        server.withLockedValue { $0 = started }
        return started.port
    }
}

/// The two ways a client verifies the bench server in the handshake benchmarks.
public enum HandshakeClient: Sendable {
    /// swift-nio-ssl's default verification: BoringSSL builds and checks the chain to the root,
    /// then the IP address.
    case nioSSLDefault(NIOSSLContext)
    /// TransportSecurity's bridge: the full policy (validation and pins) through a
    /// `PeerTrustVerifier`, with or without its decision cache.
    case transportSecurity(NIOSSLContext, PeerTrustVerifier, label: String)

    /// The client's name in the benchmark's name.
    public var label: String {
        switch self {
        case .nioSSLDefault: return "swift-nio-ssl default verification"
        case .transportSecurity(_, _, let label): return label
        }
    }

    func makeHandler() throws -> NIOSSLClientHandler {
        switch self {
        case .nioSSLDefault(let context):
            return try NIOSSLClientHandler(context: context, serverHostname: nil)
        case .transportSecurity(let context, let verifier, _):
            return try NIOSSLClientHandler(
                context: context,
                serverHostname: verifier.serverNameIndication,
                customVerificationCallback: verifier.makeVerificationCallback(onDecision: { _ in })
            )
        }
    }

    /// Connects to 127.0.0.1:`port`, completes a TLS handshake and closes the connection.
    public func handshake(port: Int) async throws {
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
    public func handshakes(port: Int, concurrency: Int) async throws {
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
