import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import PKIBuilder
import TransportSecurity
import TransportSecurityNIO

/// The PKI every session benchmark uses: a root, an intermediate and a leaf for 127.0.0.1, valid
/// now (swift-nio-ssl's and AsyncHTTPClient's default verification read the real clock).
struct BenchPKI: Sendable {
    let root: IssuedCertificate
    let serverIdentity: ClientIdentity
    let chain: [IssuedCertificate]

    init() throws {
        let pki = PKI(now: .now)
        root = try pki.issueRoot(.certificateAuthority("Bench Root"))
        let intermediate = try pki.issue(.certificateAuthority("Bench CA"), by: root)
        let leaf = try pki.issue(.server("bench", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]), by: intermediate)
        chain = [leaf, intermediate]
        serverIdentity = try ClientIdentity(certificateChainPEM: chain.pemBundle, privateKeyPEM: leaf.privateKeyPEM)
    }

    /// The root, for swift-nio-ssl's trust roots.
    var rootForNIO: NIOSSLCertificate { try! NIOSSLCertificate(bytes: root.der.derBytes, format: .der) }
}

/// An HTTPS/1.1 keep-alive server on 127.0.0.1 answering every request with `hello`, on an event
/// loop of its own so that clients measured against it share the same conditions.
final class BenchServer: Sendable {
    let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup

    init(pki: BenchPKI) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let context = try NIOSSLContext(configuration: .transportSecurityServer(identity: pki.serverIdentity))
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(HelloResponder())
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        port = channel.localAddress!.port!
        self.group = group
    }

    func stop() async throws {
        try await channel.close()
        try await group.shutdownGracefully()
    }
}

/// Answers every request with `hello`, keeping the connection alive.
private final class HelloResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let body = ByteBuffer(string: "hello")

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        let head = HTTPResponseHead(
            version: .http1_1,
            status: .ok,
            headers: ["Content-Length": "5", "Content-Type": "text/plain"]
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
