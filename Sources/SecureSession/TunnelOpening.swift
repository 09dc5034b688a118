import NIOCore

/// The end of opening a proxy tunnel, reached once: open (the handlers that opened it leave the
/// pipeline, so that TLS or cleartext HTTP/1.1 to the server runs through the tunnel) or failed
/// (the connection closes, the reason in words).
final class TunnelOpening {
    private let tunnel: EventLoopPromise<Void>
    /// Whether the tunnel is open or has failed.
    private(set) var isDone = false

    init(_ tunnel: EventLoopPromise<Void>) { self.tunnel = tunnel }

    /// The tunnel is open: removes `handlers`, then `opener` (the handler asking, which must
    /// leave last), and reports the tunnel open once all have left.
    func open(_ context: ChannelHandlerContext, removing handlers: [any RemovableChannelHandler], thenItself opener: any RemovableChannelHandler) {
        guard !isDone else { return }
        isDone = true
        let loop = context.eventLoop
        let pipeline = context.pipeline
        let removals = handlers.map { handler in
            let removed = loop.makePromise(of: Void.self)
            pipeline.syncOperations.removeHandler(handler, promise: removed)
            return removed.futureResult
        }
        let last = NIOLoopBound(opener, eventLoop: loop)
        EventLoopFuture.andAllSucceed(removals, on: loop).flatMap {
            let removed = loop.makePromise(of: Void.self)
            pipeline.syncOperations.removeHandler(last.value, promise: removed)
            return removed.futureResult
        }.cascade(to: tunnel)
    }

    /// The tunnel cannot be opened: fails it with `reason` and closes the connection.
    func fail(_ context: ChannelHandlerContext, _ reason: String) {
        guard !isDone else { return }
        isDone = true
        tunnel.fail(ProxyTunnelHandler.Refusal(description: reason))
        context.close(promise: nil)
    }
}
