import NIOCore
import NIOHTTP1
import NIOWebSocket

/// What asking a server to switch a connection to WebSocket gave.
enum WebSocketUpgradeResult: Sendable {
    /// It switched: the connection's frames, and the server's `101` answer.
    case upgraded(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, HTTPResponseHead)
    /// It answered otherwise: its answer (head and the start of its body).
    case refused(EventLoopFuture<RefusedUpgrade>)
    /// It answered `101` but not as RFC 6455 asks (the reason).
    case invalid(String)
}

/// A server's answer that did not switch to WebSocket.
struct RefusedUpgrade: Sendable {
    let head: HTTPResponseHead
    /// The body's first ``WebSocketUpgrade/refusalBodyLimit`` bytes.
    let body: [UInt8]
}

/// Sets up the client side of the WebSocket opening handshake (RFC 6455 §4.1) on an HTTP/1.1
/// connection: the upgrade request, the check of the server's `101` (its
/// `Sec-WebSocket-Accept`, the subprotocol among those offered, no extension, which none were
/// offered), then frames of at most `maximumMessageSize` bytes, fragments joined.
struct WebSocketUpgrade: Sendable {
    let requestHead: HTTPRequestHead
    let subprotocols: [String]
    let maximumMessageSize: Int

    /// The most of a refusal's body kept for the error.
    static let refusalBodyLimit = 16 * 1024

    /// Sets the handshake up on `channel`: the outer future succeeds once it is set up (the
    /// request on its way), with the inner one, which the server's answer completes. (The inner
    /// one cannot be awaited before the outer completes: swift-nio's ALPN handler holds the
    /// server's bytes until the connection's set-up is over.)
    func configure(_ channel: any Channel) -> EventLoopFuture<EventLoopFuture<WebSocketUpgradeResult>> {
        var head = requestHead
        // swift-nio's upgrade handler writes `Connection: upgrade`; the session's `keep-alive`
        // beside it would only blur it.
        head.headers.remove(name: "Connection")
        if !subprotocols.isEmpty { head.headers.replaceOrAdd(name: "Sec-WebSocket-Protocol", value: subprotocols.joined(separator: ", ")) }
        let offered = subprotocols
        let limit = maximumMessageSize
        let upgrader = NIOTypedWebSocketClientUpgrader<WebSocketUpgradeResult>(
            maxFrameSize: min(limit, Int(UInt32.max)),
            enableAutomaticErrorHandling: true
        ) { channel, response in
            channel.eventLoop.makeCompletedFuture {
                if let problem = Self.problem(with: response, offered: offered) { return .invalid(problem) }
                try channel.pipeline.syncOperations.addHandlers([
                    MaskedFrameGuard(),
                    NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 65_536, maxAccumulatedFrameSize: limit),
                ])
                return .upgraded(try NIOAsyncChannel(wrappingChannelSynchronously: channel), response)
            }
        }
        var configuration = NIOUpgradableHTTPClientPipelineConfiguration(
            upgradeConfiguration: NIOTypedHTTPClientUpgradeConfiguration(upgradeRequestHead: head, upgraders: [upgrader]) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let collector = RefusalCollector(limit: Self.refusalBodyLimit, promise: channel.eventLoop.makePromise())
                    try channel.pipeline.syncOperations.addHandler(collector)
                    return .refused(collector.answer)
                }
            }
        )
        // Frames the server sends right behind its `101`, in the same read (a ping, a greeting, a
        // close), go on to the WebSocket decoder: swift-nio's default drops them.
        configuration.leftOverBytesStrategy = .forwardBytes
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration).flatMapError { error in
                // swift-nio's check of the `101` (the key's answer, the protocol switched to).
                guard let refusal = error as? NIOHTTPClientUpgradeError else { return channel.eventLoop.makeFailedFuture(error) }
                return channel.eventLoop.makeSucceededFuture(.invalid(Self.describe(refusal)))
            }
        }
    }

    /// What swift-nio found wrong with the server's `101`, in words.
    static func describe(_ error: NIOHTTPClientUpgradeError) -> String {
        switch error {
        case .upgraderDeniedUpgrade:
            return "the server's 101 answer does not prove it read the request as a WebSocket opening (its Sec-WebSocket-Accept is missing or not the key's answer)"
        case .responseProtocolNotFound:
            return "the server's 101 answer switches to a protocol other than websocket"
        default:
            return "the server's answer to the upgrade broke HTTP's upgrade rules (\(error))"
        }
    }

    /// What is wrong with a `101` answer whose `Sec-WebSocket-Accept` swift-nio found right:
    /// a subprotocol not offered, or an extension (none are offered). `nil` when nothing.
    static func problem(with response: HTTPResponseHead, offered: [String]) -> String? {
        let chosen = response.headers["Sec-WebSocket-Protocol"]
        if let protocolName = chosen.first {
            guard chosen.count == 1, offered.contains(protocolName) else {
                return "the server chose the subprotocol '\(chosen.joined(separator: ", "))', which was not offered (offered: \(offered.isEmpty ? "none" : offered.joined(separator: ", ")))"
            }
        }
        let extensions = response.headers["Sec-WebSocket-Extensions"]
        if !extensions.isEmpty {
            return "the server chose the extension '\(extensions.joined(separator: ", "))', though none was offered"
        }
        return nil
    }
}

/// Fails the connection on a masked frame from the server (RFC 6455 §5.1: only clients mask).
final class MaskedFrameGuard: ChannelInboundHandler, Sendable {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    struct MaskedFrame: Error, CustomStringConvertible {
        var description: String { "the server sent a masked frame, which RFC 6455 §5.1 forbids" }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard Self.unwrapInboundIn(data).maskKey == nil else {
            context.fireErrorCaught(MaskedFrame())
            return
        }
        context.fireChannelRead(data)
    }
}

/// Keeps the head and the start of the body of an answer that did not switch to WebSocket.
final class RefusalCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let limit: Int
    private let promise: EventLoopPromise<RefusedUpgrade>
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var isFinished = false

    init(limit: Int, promise: EventLoopPromise<RefusedUpgrade>) {
        self.limit = limit
        self.promise = promise
    }

    /// The answer, once it has ended (or the connection has).
    var answer: EventLoopFuture<RefusedUpgrade> { promise.futureResult }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(let buffer):
            body += buffer.readableBytesView.prefix(max(limit - body.count, 0))
        case .end:
            finish()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish()
        context.fireErrorCaught(error)
    }

    private func finish() {
        guard !isFinished else { return }
        isFinished = true
        guard let head else { return promise.fail(ChannelError.eof) }
        promise.succeed(RefusedUpgrade(head: head, body: body))
    }
}
