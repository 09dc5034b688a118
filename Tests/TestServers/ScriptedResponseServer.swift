import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A cleartext server on 127.0.0.1 that keeps its connections open and answers the n-th request
/// it receives (on whichever connection) with the n-th of its responses, written as they are (no
/// HTTP encoder in between): for keep-alive connections on which a server sends more than it was
/// asked for.
public final class ScriptedResponseServer: Sendable {
    public let channel: any Channel
    private let counts = NIOLockedValueBox((connections: 0, requests: 0))

    public var url: URL { URL(string: "http://127.0.0.1:\(channel.localAddress?.port ?? 0)/")! }
    /// How many connections were accepted.
    public var connections: Int { counts.withLockedValue { $0.connections } }
    /// How many request heads arrived, on all connections.
    public var requests: Int { counts.withLockedValue { $0.requests } }

    /// Starts the server. The n-th request head to arrive is answered with `responses[n]` (the
    /// last one once they run out); `unprompted`, when given, is written on the connection of the
    /// first answer, `delay` after it, with no request to answer.
    public init(responses: [String], unprompted: String? = nil, after delay: TimeAmount = .milliseconds(50)) async throws {
        let counts = counts
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                counts.withLockedValue { $0.connections += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ScriptedResponder(responses: responses.map { Array($0.utf8) }, unprompted: unprompted.map { Array($0.utf8) }, delay: delay) {
                            counts.withLockedValue { counts in
                                defer { counts.requests += 1 }
                                return counts.requests
                            }
                        }
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }

    public func stop() async { try? await channel.close() }
}

/// Answers each request head (bytes up to an empty line; a body is taken for the start of the
/// next head, so requests should have none) with the server's next scripted response.
private final class ScriptedResponder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let responses: [[UInt8]]
    private let unprompted: [UInt8]?
    private let delay: TimeAmount
    /// Counts a request; says how many came before it.
    private let count: () -> Int
    private var received: [UInt8] = []

    init(responses: [[UInt8]], unprompted: [UInt8]?, delay: TimeAmount, count: @escaping () -> Int) {
        self.responses = responses
        self.unprompted = unprompted
        self.delay = delay
        self.count = count
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytesView
        let emptyLine = Array("\r\n\r\n".utf8)
        while let end = received.indices.dropLast(3).first(where: { received[$0..<$0 + 4].elementsEqual(emptyLine) }) {
            received.removeSubrange(...(end + 3))
            let index = count()
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: responses[min(index, responses.count - 1)])), promise: nil)
            if index == 0, let unprompted {
                let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: delay) {
                    let context = loopBound.value
                    context.writeAndFlush(NIOAny(ByteBuffer(bytes: unprompted)), promise: nil)
                }
            }
        }
    }
}
