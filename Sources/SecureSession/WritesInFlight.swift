import NIOCore
import NIOHTTP1

/// A request written part by part straight to its channel, never more than two batches of
/// ``batch`` writes ahead of the socket: a body read faster than the connection sends waits for
/// it instead of piling up in memory, while the socket always has the next batch queued.
///
/// NIO's async outbound writer cannot do this: its `write` returns once a part is queued for the
/// event loop, and the channel's writability, which would hold it back, only counts the writes
/// the event loop has already made.
struct WritesInFlight {
    /// Writes between two waits: one wait per batch keeps the hops between the sending task and
    /// the event loop few.
    static let batch = 4

    let channel: any Channel
    private var written = 0
    /// The last write of the batch before the one being written.
    private var previousBatchEnd: EventLoopFuture<Void>?
    private var last: EventLoopFuture<Void>?

    init(channel: any Channel) {
        self.channel = channel
    }

    /// Writes and flushes `part`; at the end of a batch, first waits for the socket to take the
    /// batch before.
    mutating func write(_ part: HTTPClientRequestPart) async throws {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.writeAndFlush(part, promise: promise)
        let future = promise.futureResult
        last = future
        written += 1
        guard written % Self.batch == 0 else { return }
        if let previousBatchEnd { try await previousBatchEnd.get() }
        previousBatchEnd = future
    }

    /// Waits until the socket took every write (a channel completes its writes in order), or
    /// throws the failure of the last.
    mutating func finish() async throws {
        try await last?.get()
        (last, previousBatchEnd) = (nil, nil)
    }
}
