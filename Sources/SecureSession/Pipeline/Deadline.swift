import Foundation
import NIOCore
import NIOPosix

/// A request's time limit, watched by the ``DeadlineSweeper`` instead of by extra tasks or a
/// timer per request: when it passes, `onExpiry` runs (closing the connections the request waits on, which ends those
/// waits) and every wait the deadline ``bound(_:)``s ends with a timeout. Cancelling the
/// request's task does the same, ending waits with ``SecureSessionError/cancelled``.
final class Deadline: @unchecked Sendable {
    let limit: Duration
    private let start = ContinuousClock.now
    private let onExpiry: @Sendable () -> Void
    private let lock = NSLock()
    private var outcome: SecureSessionError?
    private var stage: RequestStage?
    /// The stage the request was at when the deadline ended it.
    private var endedStage: RequestStage?
    private var waiters: [UInt64: @Sendable (SecureSessionError) -> Void] = [:]
    private var nextWaiter: UInt64 = 0

    init(limit: Duration, onExpiry: @escaping @Sendable () -> Void) {
        self.limit = limit
        self.onExpiry = onExpiry
        DeadlineSweeper.shared.watch(self)
    }

    /// The moment the deadline passes.
    var expiry: ContinuousClock.Instant { start + limit }

    /// The request is now at `stage` (what a timeout names).
    func enter(_ stage: RequestStage) {
        lock.withLock { self.stage = stage }
    }

    /// `count` more bytes of the response body arrived from `key`'s server.
    func received(_ count: Int, from key: ConnectionKey) {
        lock.withLock {
            if case .readingBody(_, let received) = stage {
                stage = .readingBody(key, received: received + count)
            } else {
                stage = .readingBody(key, received: count)
            }
        }
    }

    /// What the request is doing, in words (after "while").
    var stageDescription: String? { lock.withLock { stage?.description } }

    /// The timeout of this deadline, saying what the request was doing when its time ran out.
    var timeout: SecureSessionError {
        .timeout(limit, during: stageDescription)
    }

    /// Why the deadline ended the request, if it did: timeout or cancellation.
    var ending: SecureSessionError? { lock.withLock { outcome } }

    /// Whether the deadline ended the request while it waited on the client's side: for a
    /// connection of the session's own pool (every one to the server busy), for its turn under
    /// the session's rate limit or for a slot under its concurrency limit; not a wait for the
    /// server.
    var endedWaitingOnClient: Bool {
        lock.withLock {
            switch endedStage {
            case .waitingForConnection?, .waitingForTurn?, .waitingForSlot?: true
            default: false
            }
        }
    }

    /// Ends the request now: a timeout or a cancellation.
    func end(_ reason: SecureSessionError) {
        let woken: [@Sendable (SecureSessionError) -> Void]? = lock.withLock {
            guard outcome == nil else { return nil }
            outcome = reason
            endedStage = stage
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
        guard let woken else { return }
        onExpiry()
        for waiter in woken { waiter(reason) }
    }

    /// Stops watching the deadline once the request is over.
    func finish() {
        DeadlineSweeper.shared.forget(self)
    }

    /// The time left before the deadline ends the request.
    var remaining: Duration { limit - (ContinuousClock.now - start) }

    /// Runs `operation`; if the deadline ends meanwhile, `interrupt` runs (closing what the
    /// operation waits on, so that it ends too).
    func interrupting<T>(with interrupt: @escaping @Sendable () -> Void, _ operation: () async throws -> T) async throws -> T {
        let registered: UInt64? = lock.withLock {
            guard outcome == nil else { return nil }
            nextWaiter += 1
            waiters[nextWaiter] = { _ in interrupt() }
            return nextWaiter
        }
        guard let registered else {
            interrupt()
            throw ending ?? timeout
        }
        defer { lock.withLock { _ = waiters.removeValue(forKey: registered) } }
        return try await operation()
    }

    /// Runs `operation` (in a task of its own), but returns as soon as the deadline ends even if
    /// the operation does not: for waits that closing connections does not end (a challenge
    /// handler). The abandoned operation is cancelled.
    func bound<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let answer = OnceAnswer<T>()
        let task = Task {
            do {
                answer.give(.success(try await operation()))
            } catch {
                answer.give(.failure(error))
            }
        }
        let registered: UInt64? = lock.withLock {
            if let outcome {
                answer.give(.failure(outcome))
                return nil
            }
            nextWaiter += 1
            waiters[nextWaiter] = { reason in
                task.cancel()
                answer.give(.failure(reason))
            }
            return nextWaiter
        }
        if registered == nil { task.cancel() }
        defer { if let registered { lock.withLock { _ = waiters.removeValue(forKey: registered) } } }
        return try await answer.value
    }
}

/// Runs `operation` within `limit`: see ``Deadline``. A timeout throws
/// ``SecureSessionError/timeout(_:during:)`` and task cancellation ``SecureSessionError/cancelled``,
/// whatever error the interrupted operation ended with.
func withDeadline<Value: Sendable>(
    _ limit: Duration,
    onTimeout: @escaping @Sendable () -> Void,
    operation: (Deadline) async throws -> Value
) async throws -> Value {
    let deadline = Deadline(limit: limit, onExpiry: onTimeout)
    defer { deadline.finish() }
    do {
        return try await withTaskCancellationHandler {
            try await operation(deadline)
        } onCancel: {
            deadline.end(.cancelled)
        }
    } catch {
        if let ending = deadline.ending { throw ending }
        throw error
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at `Int64.min` and `Int64.max` (292 years),
    /// so that a limit such as `.seconds(Int64.max)` means "no limit" instead of a crash.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, carry) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !carry else { return seconds < 0 ? .min : .max }
        return total
    }
}
