import NIOCore

/// The end of opening a proxy tunnel, reached once: open (the handlers that opened it leave the
/// pipeline, so that TLS or cleartext HTTP/1.1 to the server runs through the tunnel) or failed
/// (the connection closes, the reason in words).
final class TunnelOpening {
    private enum State {
        /// The proxy has not answered yet.
        case asking
        /// The proxy said yes; the handlers that asked are leaving the pipeline.
        case opening
        /// The tunnel is open, or failed.
        case done
    }

    private let tunnel: EventLoopPromise<Void>
    private var state = State.asking
    /// Why the tunnel fails after all, found while the handlers were leaving (bytes the proxy
    /// sent after its answer).
    private var lateRefusal: String?

    init(_ tunnel: EventLoopPromise<Void>) { self.tunnel = tunnel }

    /// The refusal of bytes `proxy` (`the proxy http://…`, `the SOCKS proxy socks5://…`) sent
    /// after `answer` (`its answer to CONNECT`, `its reply`): nothing has gone through the
    /// tunnel yet, so nothing of the server's can have come back, and passed on they would be
    /// taken for the server's.
    static func earlyBytes(_ count: Int?, from proxy: String, after answer: String, target: String) -> String {
        let bytes = count.map { "\($0) bytes" } ?? "bytes"
        return "\(proxy) sent \(bytes) after \(answer), before anything went through the tunnel to \(target) (they would be taken for the server's): refused"
    }

    /// Whether the proxy's answer has been taken (the tunnel is opening, open, or failed).
    var isAnswered: Bool { state != .asking }

    /// The tunnel is open: removes `handlers`, then `opener` (the handler asking, which must
    /// leave last), and reports the tunnel open once all have left, unless ``fail(_:_:)`` was
    /// called meanwhile.
    func open(_ context: ChannelHandlerContext, removing handlers: [any RemovableChannelHandler], thenItself opener: any RemovableChannelHandler) {
        guard state == .asking else { return }
        state = .opening
        let loop = context.eventLoop
        let pipeline = context.pipeline
        let removals = handlers.map { handler in
            let removed = loop.makePromise(of: Void.self)
            pipeline.syncOperations.removeHandler(handler, promise: removed)
            return removed.futureResult
        }
        let bound = NIOLoopBound((opening: self, opener: opener, context: context), eventLoop: loop)
        EventLoopFuture.andAllSucceed(removals, on: loop).flatMap {
            let (opening, opener, context) = bound.value
            opening.state = .done
            if let refusal = opening.lateRefusal {
                context.close(promise: nil)
                return loop.makeFailedFuture(ProxyTunnelHandler.Refusal(description: refusal))
            }
            let removed = loop.makePromise(of: Void.self)
            pipeline.syncOperations.removeHandler(opener, promise: removed)
            return removed.futureResult
        }.cascade(to: tunnel)
    }

    /// The tunnel cannot be opened: fails it with `reason` and closes the connection (once the
    /// handlers have left, when they are leaving).
    func fail(_ context: ChannelHandlerContext, _ reason: String) {
        switch state {
        case .asking:
            state = .done
            tunnel.fail(ProxyTunnelHandler.Refusal(description: reason))
            context.close(promise: nil)
        case .opening:
            if lateRefusal == nil { lateRefusal = reason }
        case .done:
            return
        }
    }
}
