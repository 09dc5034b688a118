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
        loop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) { [self] in
            disarm(onlyIf: promise)?.succeed(nil)
        }
        return promise.futureResult
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            let isInformational = head.isInformational
            disarm()?.succeed(isInformational ? nil : head.status.code)
            if isInformational { return }
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // Closed before a word: sending fails and tells why.
        disarm()?.succeed(nil)
        context.fireChannelInactive()
    }

    /// Takes the armed promise away, to be decided by the caller; with `expected`, only when
    /// it is that one (a timer of an earlier request finds the next one's armed and leaves it).
    private func disarm(onlyIf expected: EventLoopPromise<UInt?>? = nil) -> EventLoopPromise<UInt?>? {
        armed.withLockedValue { current in
            guard let taken = current, expected.map({ $0.futureResult === taken.futureResult }) ?? true else { return nil }
            current = nil
            return taken
        }
    }
}
