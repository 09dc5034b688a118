import Foundation

/// At most `maximum` requests under way to each server: a request beyond waits, in the order
/// requests came, for one under way to end. The ``RequestRateLimiter``'s concurrency limit.
package final class ConcurrentRequestSlots: @unchecked Sendable {
    /// One request waiting for a slot (its state guarded by the slots' lock).
    private final class Claim: @unchecked Sendable {
        enum State {
            /// Queued; its task has not suspended yet.
            case queued
            /// Queued, its task suspended until it is handed a slot.
            case waiting(CheckedContinuation<Void, any Error>)
            /// Handed a slot: it must give it back.
            case granted
            /// Gone before it was handed one (timeout, cancellation).
            case abandoned
        }

        var state = State.queued
    }

    /// A server's slots in use and the claims waiting for one.
    private struct Server {
        var inUse = 0
        var queue: [Claim] = []
    }

    package let maximum: Int
    private let lock = NSLock()
    private var servers: [String: Server] = [:]

    package init(maximum: Int) {
        self.maximum = max(maximum, 1)
    }

    /// Takes one of `server`'s slots, waiting for one when all are in use; `deadline` ending
    /// (timeout or cancellation) ends the wait, throwing its reason. A slot taken must be given
    /// back (``giveBack(_:)``).
    package func take(_ server: String, deadline: some WaitBound) async throws {
        let claim = Claim()
        let isImmediate = lock.withLock {
            var slots = servers[server] ?? Server()
            defer { servers[server] = slots }
            guard slots.inUse < maximum, slots.queue.isEmpty else {
                slots.queue.append(claim)
                return false
            }
            slots.inUse += 1
            return true
        }
        if isImmediate { return }
        do {
            try await deadline.interrupting(with: { self.abandon(claim, of: server) }) {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    lock.withLock {
                        switch claim.state {
                        case .queued: claim.state = .waiting(continuation)
                        case .granted: continuation.resume()
                        case .abandoned: continuation.resume(throwing: CancellationError())
                        case .waiting: preconditionFailure("a claim waits once")
                        }
                    }
                }
            }
        } catch {
            // Handed a slot just as the wait ended: it goes to the next.
            abandon(claim, of: server)
            if lock.withLock({ if case .granted = claim.state { true } else { false } }) { giveBack(server) }
            throw deadline.endingReason ?? error
        }
    }

    /// Gives back one of `server`'s slots: to the first claim waiting, else free.
    package func giveBack(_ server: String) {
        lock.withLock {
            guard var slots = servers[server] else { return }
            if slots.queue.isEmpty {
                slots.inUse -= 1
            } else {
                let next = slots.queue.removeFirst()
                let state = next.state
                next.state = .granted
                if case .waiting(let continuation) = state { continuation.resume() }
            }
            servers[server] = slots.inUse == 0 && slots.queue.isEmpty ? nil : slots
        }
    }

    /// Takes `claim` out of the queue unless it was handed a slot, waking its task.
    private func abandon(_ claim: Claim, of server: String) {
        lock.withLock {
            switch claim.state {
            case .granted, .abandoned:
                return
            case .queued:
                claim.state = .abandoned
            case .waiting(let continuation):
                claim.state = .abandoned
                continuation.resume(throwing: CancellationError())
            }
            servers[server]?.queue.removeAll { $0 === claim }
            if let slots = servers[server], slots.inUse == 0, slots.queue.isEmpty { servers[server] = nil }
        }
    }

    /// How many requests to `server` are under way and waiting (for tests and status).
    package func count(_ server: String) -> (inUse: Int, waiting: Int) {
        lock.withLock { (servers[server]?.inUse ?? 0, servers[server]?.queue.count ?? 0) }
    }
}
