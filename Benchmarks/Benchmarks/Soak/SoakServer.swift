import LabServers
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import PKIBuilder
import TransportSecurityNIO

/// A server of the soak: an HTTPS server on 127.0.0.1 presenting a chain of the lab, counting
/// the requests it reads (an impostor must read none), able to move to another chain mid-run
/// (connections made from then on present it), and, when `recycleAfter` is given, closing each
/// HTTP/1.1 connection gracefully (`Connection: close`) after that many responses, as servers
/// behind a load balancer do, so that new handshakes come all along.
final class SoakServer: Sendable {
    let name: String
    let port: Int
    private let channel: any Channel
    private let context: NIOLockedValueBox<NIOSSLContext>
    private let requests: NIOLockedValueBox<Int>

    /// The requests the server has read.
    var requestCount: Int { requests.withLockedValue { $0 } }

    init(name: String, chain: [IssuedCertificate], http2: Bool = false, recycleAfter: Int? = nil) async throws {
        self.name = name
        let context = NIOLockedValueBox(try Self.context(chain, http2: http2))
        let requests = NIOLockedValueBox(0)
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 512)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context.withLockedValue { $0 }))
                }.flatMap {
                    channel.configureLabHTTPServer(http2: http2) { _ in CountingResponder(requests: requests, recycleAfter: recycleAfter) }
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        port = channel.localAddress?.port ?? 0
        self.context = context
        self.requests = requests
    }

    /// Presents `chain` on connections made from now on.
    func rotate(to chain: [IssuedCertificate], http2: Bool = false) throws {
        let next = try Self.context(chain, http2: http2)
        context.withLockedValue { $0 = next }
    }

    func stop() async { try? await channel.close() }

    private static func context(_ chain: [IssuedCertificate], http2: Bool) throws -> NIOSSLContext {
        let identity = try ClientIdentity(certificateChainPEM: chain.pemBundle, privateKeyPEM: chain[0].privateKeyPEM, source: "soak server")
        var configuration = TLSConfiguration.transportSecurityServer(identity: identity)
        if http2 { configuration.applicationProtocols = ["h2", "http/1.1"] }
        return try NIOSSLContext(configuration: configuration)
    }
}

/// Answers every request with "ok", counting it.
private final class CountingResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private let requests: NIOLockedValueBox<Int>
    private let recycleAfter: Int?
    private var served = 0

    init(requests: NIOLockedValueBox<Int>, recycleAfter: Int?) {
        self.requests = requests
        self.recycleAfter = recycleAfter
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else {
            if case .head = unwrapInboundIn(data) { requests.withLockedValue { $0 += 1 } }
            return
        }
        served += 1
        let closes = recycleAfter.map { served % $0 == 0 } ?? false
        var headers = HTTPHeaders([("Content-Type", "text/plain"), ("Content-Length", "2")])
        if closes { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "ok")))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if closes { channel.close(promise: nil) }
        }
    }
}
