import NIOCore
import NIOHTTP2

/// Marks an HTTP/2 connection as going away when the server sends `GOAWAY` (frames of stream 0
/// reach the connection's own pipeline).
final class GoAwayWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    private let goingAway: LockedFlag

    init(goingAway: LockedFlag) { self.goingAway = goingAway }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .goAway = unwrapInboundIn(data).payload { goingAway.set() }
        context.fireChannelRead(data)
    }
}
