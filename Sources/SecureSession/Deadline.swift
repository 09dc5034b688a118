import Foundation
import NIOCore
import NIOPosix

/// A request's time limit, kept by a timer on an event loop instead of by extra tasks: when it
/// passes, `onExpiry` runs (closing the connections the request waits on, which ends those
/// waits) and every wait the deadline ``bound(_:)``s ends with a timeout. Cancelling the
/// request's task does the same, ending waits with ``SecureSessionError/cancelled``.
final class Deadline: @unchecked Sendable {
    let limit: Duration
    private let start = ContinuousClock.now
    private let onExpiry: @Sendable () -> Void
    private let lock = NSLock()
    private var outcome: SecureSessionError?
    private var waiters: [UInt64: @Sendable (SecureSessionError) -> Void] = [:]
    private var nextWaiter: UInt64 = 0
    private var timer: Scheduled<Void>?

    init(limit: Duration, eventLoop: any EventLoop, onExpiry: @escaping @Sendable () -> Void) {
        self.limit = limit
        self.onExpiry = onExpiry
        let timer = eventLoop.scheduleTask(in: .nanoseconds(limit.nanoseconds)) { [weak self] in
            guard let self else { return }
            self.end(.timeout(limit))
        }
        lock.withLock { self.timer = timer }
    }

    /// Why the deadline ended the request, if it did: timeout or cancellation.
    var ending: SecureSessionError? { lock.withLock { outcome } }

    /// Ends the request now: a timeout or a cancellation.
    func end(_ reason: SecureSessionError) {
        let woken: [@Sendable (SecureSessionError) -> Void]? = lock.withLock {
            guard outcome == nil else { return nil }
            outcome = reason
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
        guard let woken else { return }
        onExpiry()
        for waiter in woken { waiter(reason) }
    }

    /// Stops the timer once the request is over.
    func finish() {
        lock.withLock { timer }?.cancel()
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
            throw ending ?? .timeout(limit)
        }
        defer { lock.withLock { _ = waiters.removeValue(forKey: registered) } }
        return try await operation()
    }

    /// Runs `operation` (in a task of its own), but returns as soon as the deadline ends even if
    /// the operation does not: for waits that closing connections does not end (a challenge
    /// handler, a free connection slot). The abandoned operation is cancelled.
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
/// ``SecureSessionError/timeout(_:)`` and task cancellation ``SecureSessionError/cancelled``,
/// whatever error the interrupted operation ended with.
func withDeadline<Value: Sendable>(
    _ limit: Duration,
    on eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.any(),
    onTimeout: @escaping @Sendable () -> Void,
    operation: (Deadline) async throws -> Value
) async throws -> Value {
    let deadline = Deadline(limit: limit, eventLoop: eventLoop, onExpiry: onTimeout)
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

/// A result given once (later gifts are ignored) and awaited once.
final class OnceAnswer<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    private var continuation: CheckedContinuation<T, any Error>?

    func give(_ given: Result<T, any Error>) {
        let waiting: CheckedContinuation<T, any Error>? = lock.withLock {
            guard result == nil else { return nil }
            result = given
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(with: given)
    }

    var value: T {
        get async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let ready: Result<T, any Error>? = lock.withLock {
                    if let result { return result }
                    self.continuation = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
