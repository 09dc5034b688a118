import Foundation
import NIOCore
import NIOPosix

/// Watches every live ``Deadline`` with one repeating timer (every 10 ms) instead of one timer
/// per request: starting and finishing a request only takes a lock. The timer runs while
/// deadlines were watched within the last second, then stops until the next one.
final class DeadlineSweeper: @unchecked Sendable {
    static let shared = DeadlineSweeper()

    /// How often deadlines are checked: a timeout fires at most this late.
    static let resolution = TimeAmount.milliseconds(10)
    private static let idleTicksBeforeStopping = 100

    private let lock = NSLock()
    private var watched: [ObjectIdentifier: Deadline] = [:]
    private var timer: RepeatedTask?
    private var idleTicks = 0

    func watch(_ deadline: Deadline) {
        let needsTimer: Bool = lock.withLock {
            watched[ObjectIdentifier(deadline)] = deadline
            idleTicks = 0
            return timer == nil
        }
        guard needsTimer else { return }
        let started = MultiThreadedEventLoopGroup.singleton.any().scheduleRepeatedTask(
            initialDelay: Self.resolution,
            delay: Self.resolution
        ) { [weak self] task in
            self?.sweep(task)
        }
        let redundant: Bool = lock.withLock {
            if timer == nil {
                timer = started
                return false
            }
            return true
        }
        if redundant { started.cancel() }
    }

    func forget(_ deadline: Deadline) {
        lock.withLock { _ = watched.removeValue(forKey: ObjectIdentifier(deadline)) }
    }

    private func sweep(_ task: RepeatedTask) {
        let now = ContinuousClock.now
        let expired: [Deadline] = lock.withLock {
            if watched.isEmpty {
                idleTicks += 1
                if idleTicks >= Self.idleTicksBeforeStopping, timer === task {
                    timer = nil
                    task.cancel()
                }
                return []
            }
            idleTicks = 0
            let due = watched.values.filter { $0.expiry <= now }
            for deadline in due { watched.removeValue(forKey: ObjectIdentifier(deadline)) }
            return due
        }
        for deadline in expired { deadline.end(deadline.timeout) }
    }
}
