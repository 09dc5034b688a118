import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2

/// Notes whether the server reset an HTTP/2 stream (its `RST_STREAM`), in the stream's own
/// pipeline: a stream closed with an error code and no reset from the server was reset by the
/// client's HTTP/2 handler, over something wrong in the server's response.
final class ServerResetWatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload

    private let code = NIOLockedValueBox<HTTP2ErrorCode?>(nil)

    /// The error code of the server's `RST_STREAM`, if it sent one.
    var serverReset: HTTP2ErrorCode? { code.withLockedValue { $0 } }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .rstStream(let errorCode) = unwrapInboundIn(data) {
            code.withLockedValue { $0 = errorCode }
        }
        context.fireChannelRead(data)
    }
}
