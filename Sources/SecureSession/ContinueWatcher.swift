import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Watches the answers of an HTTP/1.1 connection for a request that waits before its body
/// (``ExpectContinue``): the first head after it is armed says whether to send the body (a
/// `100 Continue`, or any informational answer: the server is there and reading) or not (a final
/// answer); a timer sends it anyway. Informational answers
/// (100, 103) go no further than here, so the rest of the pipeline sees final answers only, as
/// with swift-nio's default decoder.
final class ContinueWatcher: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    /// What the next head decides: `nil` send the body, a final status code do not.
    private let armed = NIOLockedValueBox<EventLoopPromise<UInt?>?>(nil)

    /// Waits for the next head, at most `timeout` (then: send the body, `nil`); the status of
    /// a final answer that came first.
    func arm(on loop: any EventLoop, timeout: Duration) -> EventLoopFuture<UInt?> {
        let promise = loop.makePromise(of: UInt?.self)
        armed.withLockedValue { $0 = promise }
        loop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) { [armed] in
            let waiting = armed.withLockedValue { current -> EventLoopPromise<UInt?>? in
                guard current?.futureResult === promise.futureResult else { return nil }
                defer { current = nil }
                return current
            }
            waiting?.succeed(nil)
        }
        return promise.futureResult
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            let isInformational = head.status.code < 200 && head.status != .switchingProtocols
            let waiting = armed.withLockedValue { current in
                defer { current = nil }
                return current
            }
            waiting?.succeed(isInformational ? nil : head.status.code)
            if isInformational { return }
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // Closed before a word: sending fails and tells why.
        armed.withLockedValue { current in
            defer { current = nil }
            return current
        }?.succeed(nil)
        context.fireChannelInactive()
    }
}
