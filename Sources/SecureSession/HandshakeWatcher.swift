import NIOCore
import NIOTLS

/// Completes a promise when the TLS handshake completes, fails it when the channel errors or
/// closes first.
final class HandshakeWatcher: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny
    private let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            promise.succeed()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    /// A channel that never became active (a refused connection) is torn down without
    /// `channelInactive`: the promise must not be left open. Completing it twice is harmless.
    func handlerRemoved(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
    }
}
