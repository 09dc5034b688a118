import NIOCore
import NIOHTTP1

/// Opens a `CONNECT` tunnel through an HTTP proxy: sends `CONNECT target` (with the proxy's
/// credentials), waits for a 2xx answer, then takes itself and swift-nio's HTTP encoder and
/// decoder out of the pipeline, so that the TLS handshake with the server runs through the
/// tunnel. Any other answer, the proxy closing first, or bytes from the proxy after its answer
/// (before the client's TLS hello, nothing of the server's can come), fails the tunnel.
final class ProxyTunnelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Never
    typealias OutboundOut = HTTPClientRequestPart

    /// Why a tunnel could not be opened.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    private let target: String
    private let authorization: String?
    private let proxy: String
    private let opening: TunnelOpening
    private let codec: [any RemovableChannelHandler]
    private var requested = false

    /// - Parameters:
    ///   - target: `host:port` of the server.
    ///   - authorization: The `Proxy-Authorization` value, if any.
    ///   - proxy: The proxy, for messages.
    ///   - codec: swift-nio's HTTP/1 encoder and decoder put before this handler, removed with it.
    ///   - tunnel: Succeeds once the tunnel is open and the pipeline is clear.
    init(target: String, authorization: String?, proxy: String, codec: [any RemovableChannelHandler], tunnel: EventLoopPromise<Void>) {
        self.target = target
        self.authorization = authorization
        self.proxy = proxy
        self.codec = codec
        self.opening = TunnelOpening(tunnel)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { requestTunnel(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        requestTunnel(context: context)
        context.fireChannelActive()
    }

    private func requestTunnel(context: ChannelHandlerContext) {
        guard !requested else { return }
        requested = true
        var headers = HTTPHeaders([("Host", target)])
        if let authorization { headers.add(name: "Proxy-Authorization", value: authorization) }
        context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: .CONNECT, uri: target, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !opening.isAnswered, case .head(let head) = unwrapInboundIn(data) else { return }
        guard (200..<300).contains(head.status.code) else {
            opening.fail(context, "the proxy \(proxy) refused the tunnel to \(target): \(head.status.code) \(head.status.reasonPhrase)")
            return
        }
        // The answer to CONNECT ends with its head: what follows is the server's, through the
        // tunnel. The codec leaves first (the decoder only once its current read is over, so
        // this waits for the removals), then the tunnel is reported open and the TLS handler
        // goes in; the server says nothing before the client's hello meanwhile.
        opening.open(context, removing: codec, thenItself: self)
    }

    func channelInactive(context: ChannelHandlerContext) {
        opening.fail(context, "the proxy \(proxy) closed the connection before opening the tunnel to \(target)")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard opening.isAnswered else {
            opening.fail(context, "the proxy \(proxy) did not open the tunnel to \(target): \(error)")
            return
        }
        // After the answer, the decoder errs only on bytes that followed it: it reads them as
        // another response (unsolicited, or malformed), or hands them over as it leaves.
        var count: Int?
        if case ByteToMessageDecoderError.leftoverDataWhenDone(let bytes)? = error as? ByteToMessageDecoderError { count = bytes.readableBytes }
        opening.fail(context, TunnelOpening.earlyBytes(count, from: "the proxy \(proxy)", after: "its answer to CONNECT", target: target))
    }
}
