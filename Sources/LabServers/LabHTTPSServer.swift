import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import PKIBuilder
import TransportSecurityNIO

/// An HTTPS server on 127.0.0.1 (HTTP/1.1, and HTTP/2 when asked) that presents a chosen
/// certificate chain and answers every request with one page, keeping connections alive: a
/// server of the attack lab.
public final class LabHTTPSServer: Sendable {
    /// The port the system chose.
    public let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// Starts a server on 127.0.0.1 on a port the system chooses.
    /// - Parameters:
    ///   - chain: What the server presents, leaf first; the leaf's key is the server's.
    ///   - page: The body of every response (`text/plain`).
    ///   - group: Where the server runs.
    ///   - http2: Offer HTTP/2 through ALPN besides HTTP/1.1.
    /// - Throws: `ClientIdentityError` when the leaf's key is missing or does not match, or
    ///   NIO's error when the port cannot be bound.
    public static func start(
        chain: [IssuedCertificate],
        page: String,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        http2: Bool = false
    ) async throws -> LabHTTPSServer {
        let identity = try ClientIdentity(
            certificateChainPEM: chain.pemBundle,
            privateKeyPEM: chain.first?.privateKeyPEM ?? "",
            source: "the lab server's chain"
        )
        var configuration = TLSConfiguration.transportSecurityServer(identity: identity)
        if http2 { configuration.applicationProtocols = ["h2", "http/1.1"] }
        return try await start(configuration: configuration, page: page, group: group)
    }

    /// Starts a server on 127.0.0.1 with a TLS configuration of the caller's, on a port the
    /// system chooses: with a key held outside BoringSSL (`NIOSSLPrivateKey(customPrivateKey:)`)
    /// that is not the leaf's, a server that presents a genuine chain whose key it does not hold,
    /// as an attacker replaying a public chain would (BoringSSL cannot check such a pairing).
    /// - Parameters:
    ///   - configuration: The server's TLS configuration (its `applicationProtocols` say whether
    ///     HTTP/2 is offered).
    ///   - page: The body of every response (`text/plain`).
    ///   - group: Where the server runs.
    /// - Throws: NIOSSL's error for a configuration it cannot load, or NIO's when the port cannot
    ///   be bound.
    public static func start(
        configuration: TLSConfiguration,
        page: String,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> LabHTTPSServer {
        let http2 = configuration.applicationProtocols.contains("h2")
        let context = try NIOSSLContext(configuration: configuration)
        let body = ByteBuffer(string: page)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    channel.configureLabHTTPServer(http2: http2) { _ in PageResponder(body: body) }
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return LabHTTPSServer(port: channel.localAddress?.port ?? 0, channel: channel)
    }

    /// Stops accepting connections.
    public func stop() async {
        try? await channel.close()
    }
}

/// Answers every request with the same page; a client that refuses the certificate just closes.
private final class PageResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let body: ByteBuffer

    init(body: ByteBuffer) { self.body = body }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        let headers: HTTPHeaders = ["Content-Length": String(body.readableBytes), "Content-Type": "text/plain; charset=utf-8"]
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
