import NIOCore
import NIOHTTP2

/// Notes the server's `GOAWAY` (frames of stream 0 reach the connection's own pipeline) in the
/// connection's ``GoAwayRecord``, its `PING` acknowledgements in its ``HTTP2LivenessProbe`` and
/// what the client's HTTP/2 handler found wrong in the server's frames in its
/// ``HTTP2ViolationRecord``, and ends the connection when the client's own HTTP/2 handler
/// sends one with an error code: a connection error it met (a frame on a stream never opened,
/// a malformed frame), after which swift-nio-http2 leaves the connection open but no longer
/// sound. Such a connection is closed, so that its requests fail at once and the next ones get a
/// new connection, instead of waiting on it until their deadlines.
final class HTTP2ConnectionWatcher: ChannelInboundHandler, RemovableChannelHandler, NIOHTTP2FrameDelegate {
    typealias InboundIn = HTTP2Frame
    private let record: GoAwayRecord
    private let probe: HTTP2LivenessProbe
    private let violations: HTTP2ViolationRecord
    private let channel: any Channel

    init(record: GoAwayRecord, probe: HTTP2LivenessProbe, violations: HTTP2ViolationRecord, channel: any Channel) {
        self.record = record
        self.probe = probe
        self.violations = violations
        self.channel = channel
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data).payload {
        case .goAway(let lastStreamID, let errorCode, _): record.serverWentAway(lastProcessed: lastStreamID, errorCode: errorCode)
        case .ping(let ping, ack: true): probe.acknowledged(ping)
        default: break
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        violations.note(error, endsConnection: record.isEndedByClient)
        context.fireErrorCaught(error)
    }

    /// Called by the HTTP/2 handler for every frame it writes, on the event loop.
    func wroteFrame(_ frame: HTTP2Frame) {
        guard case .goAway(_, let errorCode, _) = frame.payload, errorCode != .noError else { return }
        record.clientWentAway()
        // After the GOAWAY is flushed, not from within the handler's write.
        let channel = channel
        channel.eventLoop.execute { channel.close(promise: nil) }
    }
}
