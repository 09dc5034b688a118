import NIOCore
import NIOHTTP1

/// Closes an HTTP/1.1 connection on which the server sends a response nobody asked for, so that
/// it never reaches the next request as that request's answer.
///
/// HTTP/1.1 pairs responses with requests by order alone. A server that writes more than the
/// response it owes (bytes after a body whose length it stated, or an answer on an idle
/// connection: a `408 Request Timeout` before it closes one) leaves those bytes waiting on the
/// connection. swift-nio's decoder refuses a response head when no request is outstanding, but
/// its error then waited in the connection's stream for the next request the pool sent there,
/// which failed with it: a `POST` written to the server and answered with
/// "unsolicitedResponse". Each request head written is owed one final response; a response part,
/// or a decoding error, arriving when none is owed closes the connection at once, on its event
/// loop, so that the pool never leases it again (curl and AsyncHTTPClient give such connections
/// up the same way).
///
/// Sits last before the async channel, where only final responses arrive (swift-nio's decoder, or
/// ``ContinueWatcher``, keeps interim ones away).
final class UnsolicitedResponseGuard: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    /// Request heads written whose response has not ended yet.
    private var owed = 0
    /// Set once the connection is given up: nothing more is read from it.
    private var givenUp = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head = unwrapOutboundIn(data) { owed += 1 }
        context.write(data, promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !givenUp else { return }
        guard owed > 0 else { return giveUp(context) }
        if case .end = unwrapInboundIn(data) { owed -= 1 }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !givenUp else { return }
        guard owed > 0 else { return giveUp(context) }
        context.fireErrorCaught(error)
    }

    private func giveUp(_ context: ChannelHandlerContext) {
        givenUp = true
        context.close(promise: nil)
    }
}
