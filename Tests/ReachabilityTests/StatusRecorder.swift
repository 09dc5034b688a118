import Foundation
import Reachability

/// Collects a monitor's status updates with their arrival times, for tests to wait on.
final class StatusRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [(status: ReachabilityStatus, at: ContinuousClock.Instant)] = []
    private var reader: Task<Void, Never>?

    /// Starts reading `monitor.statusUpdates()`.
    init(_ monitor: ReachabilityMonitor) {
        let updates = monitor.statusUpdates()
        reader = Task { [weak self] in
            for await status in updates {
                guard let self else { return }
                self.lock.withLock { self.received.append((status, ContinuousClock.now)) }
            }
        }
    }

    deinit { reader?.cancel() }

    /// What `stream` delivers within `duration` (what it had buffered, and anything new).
    static func collect(_ stream: AsyncStream<ReachabilityStatus>, for duration: Duration) async -> [ReachabilityStatus] {
        let collected = LockedStatuses()
        let reader = Task {
            for await status in stream { collected.append(status) }
        }
        try? await Task.sleep(for: duration)
        reader.cancel()
        return collected.values
    }

    /// Every status so far.
    var statuses: [ReachabilityStatus] { lock.withLock { received.map(\.status) } }

    /// The first status after index `after` that satisfies `predicate`, with its arrival time;
    /// `nil` when none comes within `timeout`.
    func wait(
        after index: Int = 0,
        timeout: Duration = .seconds(5),
        for predicate: (ReachabilityStatus) -> Bool
    ) async -> (status: ReachabilityStatus, at: ContinuousClock.Instant)? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let found = lock.withLock { received.dropFirst(index).first { predicate($0.status) } }
            if let found { return found }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Waits until the latest status satisfies `predicate` (settled), up to `timeout`.
    func waitForLatest(timeout: Duration = .seconds(5), _ predicate: (ReachabilityStatus) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let last = lock.withLock({ received.last?.status }), predicate(last) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

extension ReachabilityStatus {
    /// Whether this is `reachable` through the interface named `name`.
    func isReachable(through name: String) -> Bool { interface?.name == name }
}

/// Statuses appended from a reading task.
final class LockedStatuses: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [ReachabilityStatus] = []

    func append(_ status: ReachabilityStatus) { lock.withLock { statuses.append(status) } }
    var values: [ReachabilityStatus] { lock.withLock { statuses } }
}
