import Foundation
import NIOCore
import NIOPosix

/// A TCP server on 127.0.0.1 that resets every connection (RST, not FIN) as soon as the client
/// sends its first bytes: a TLS server that dies in the middle of the handshake, after the
/// ClientHello.
public final class ResettingServer: Sendable {
    public let channel: any Channel
    public var port: Int { channel.localAddress?.port ?? 0 }
    /// The connections accepted so far.
    public let connections = ConnectionCounter()

    public init() async throws {
        let counter = connections
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                _ = counter.next()
                channel.closeFuture.whenComplete { _ in counter.close() }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ResetOnFirstRead())
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }

    public func stop() async { try? await channel.close() }
}

/// Closes with SO_LINGER 0 (the kernel then sends RST) on the first bytes read.
private final class ResetOnFirstRead: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let channel = context.channel
        guard let socket = channel as? any SocketOptionProvider else { return channel.close(promise: nil) }
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
    }
}
