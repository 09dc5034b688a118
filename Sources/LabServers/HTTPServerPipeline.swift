import NIOCore
import NIOHTTP1
import NIOHTTP2

extension Channel {
    /// Makes an accepted (TLS) channel an HTTP server: HTTP/1.1, or HTTP/2 when `http2` is set
    /// and the client picks `h2` through ALPN (the TLS context must offer it). `responder` makes
    /// the handler of the connection (HTTP/1.1; its argument is `false`) or of each stream
    /// (HTTP/2; `true`), which sees `HTTPServerRequestPart`s either way. `onConnectionFrame`, when
    /// given, sees every frame of stream 0 an HTTP/2 client sends (SETTINGS, PING, GOAWAY…).
    public func configureLabHTTPServer(
        http2: Bool,
        onConnectionFrame: (@Sendable (HTTP2Frame) -> Void)? = nil,
        responder: @escaping @Sendable (_ forHTTP2Stream: Bool) -> any ChannelHandler
    ) -> EventLoopFuture<Void> {
        @Sendable func http1(_ channel: any Channel) -> EventLoopFuture<Void> {
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                try channel.pipeline.syncOperations.addHandler(responder(false))
            }
        }
        guard http2 else { return http1(self) }
        return configureHTTP2SecureUpgrade(
            h2ChannelConfigurator: { channel in
                channel.configureHTTP2Pipeline(mode: .server, inboundStreamInitializer: { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                        try stream.pipeline.syncOperations.addHandler(responder(true))
                    }
                }).flatMapThrowing { _ in
                    if let onConnectionFrame { try channel.pipeline.syncOperations.addHandler(ConnectionFrameObserver(observe: onConnectionFrame)) }
                }
            },
            http1ChannelConfigurator: http1
        )
    }
}

/// Shows a test the frames of stream 0 that reach an HTTP/2 connection's own pipeline.
private final class ConnectionFrameObserver: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    private let observe: @Sendable (HTTP2Frame) -> Void

    init(observe: @escaping @Sendable (HTTP2Frame) -> Void) { self.observe = observe }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        observe(unwrapInboundIn(data))
        context.fireChannelRead(data)
    }
}
