import Foundation
import NIOCore
import NIOPosix

/// A cleartext server on 127.0.0.1 that answers every request with the same bytes, written as
/// they are (no HTTP encoder in between), then closes the connection: for responses a correct
/// HTTP server would never send.
public final class RawResponseServer: Sendable {
    public let channel: any Channel

    public var url: URL { URL(string: "http://127.0.0.1:\(channel.localAddress?.port ?? 0)/")! }

    /// Starts the server; each connection gets `response` once the request's head has arrived.
    public init(response: [UInt8]) async throws {
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawResponder(response: response))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }

    /// A server answering `text` (UTF-8).
    public convenience init(response text: String) async throws {
        try await self.init(response: Array(text.utf8))
    }

    public func stop() async { try? await channel.close() }
}

/// Waits for the end of a request head (an empty line), writes the response and closes.
private final class RawResponder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let response: [UInt8]
    private var received: [UInt8] = []
    private var answered = false

    init(response: [UInt8]) { self.response = response }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        received += unwrapInboundIn(data).readableBytesView
        let emptyLine = Array("\r\n\r\n".utf8)
        guard received.count >= 4, (0...(received.count - 4)).contains(where: { Array(received[$0..<$0 + 4]) == emptyLine }) else { return }
        answered = true
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: response)), promise: nil)
        context.close(promise: nil)
    }
}
