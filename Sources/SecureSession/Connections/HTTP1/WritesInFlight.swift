import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// A request written part by part straight to its channel, never more than ``limit`` writes
/// ahead of the socket: a body read faster than the connection sends waits for it instead of
/// piling up in memory, while a connection that keeps up is never waited for.
///
/// NIO's async outbound writer cannot do this: its `write` returns once a part is queued for the
/// event loop, and the channel's writability, which would hold it back, only counts the writes
/// the event loop has already made. Here every write is counted from the moment it is handed to
/// the channel until the socket took it (its promise completes, on the event loop).
struct WritesInFlight {
    /// Parts of 64 KiB not yet taken by the socket before the next write waits: 1 MiB.
    static let limit = 16

    let channel: any Channel
    private let pending = PendingWrites()

    init(channel: any Channel) {
        self.channel = channel
    }

    /// Writes and flushes `part`, first waiting while ``limit`` writes are not yet taken.
    /// - Throws: The failure of an earlier write (the connection closed under it).
    func write(_ part: HTTPClientRequestPart) async throws {
        try await pending.wait(untilFewerThan: Self.limit)
        pending.add()
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { [pending] result in pending.complete(result) }
        channel.writeAndFlush(part, promise: promise)
    }

    /// Waits until the socket took every write, or throws the first that failed.
    func finish() async throws {
        try await pending.wait(untilFewerThan: 1)
    }
}

/// The writes handed to a channel and not yet completed, the first failure among them, and the
/// one task waiting for fewer of them.
private final class PendingWrites: Sendable {
    private struct State {
        var count = 0
        var failure: (any Error)?
        var waiter: (limit: Int, continuation: CheckedContinuation<Void, any Error>)?
    }

    private let state = NIOLockedValueBox(State())

    func add() {
        state.withLockedValue { $0.count += 1 }
    }

    /// A write completed: the waiter goes on once there are fewer than it waits for, or at the
    /// first failure.
    func complete(_ result: Result<Void, any Error>) {
        let resumed: (CheckedContinuation<Void, any Error>, (any Error)?)? = state.withLockedValue { state in
            state.count -= 1
            if case .failure(let error) = result, state.failure == nil { state.failure = error }
            guard let waiter = state.waiter, state.count < waiter.limit || state.failure != nil else { return nil }
            state.waiter = nil
            return (waiter.continuation, state.failure)
        }
        guard let (continuation, failure) = resumed else { return }
        if let failure { continuation.resume(throwing: failure) } else { continuation.resume() }
    }

    /// Returns once fewer than `limit` writes are pending (at once, without suspending, when
    /// there are); throws the first failure.
    func wait(untilFewerThan limit: Int) async throws {
        let ready: Result<Void, any Error>? = state.withLockedValue { state in
            if let failure = state.failure { return .failure(failure) }
            return state.count < limit ? .success(()) : nil
        }
        if let ready { return try ready.get() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let ready: Result<Void, any Error>? = state.withLockedValue { state in
                if let failure = state.failure { return .failure(failure) }
                if state.count < limit { return .success(()) }
                state.waiter = (limit, continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
