import NIOCore

/// Keep-alive connections per ``ConnectionKey``, at most a fixed number open per key; requests
/// beyond it wait for a connection to come back.
actor ConnectionPool {
    private let maximumPerKey: Int
    private let idleTimeout: Duration
    private var idle: [ConnectionKey: [HTTP1Connection]] = [:]
    private var leased: [ConnectionKey: Int] = [:]
    private var waiters: [ConnectionKey: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)]] = [:]
    private var nextWaiterID: UInt64 = 0
    private var isShutDown = false

    init(maximumPerKey: Int, idleTimeout: Duration) {
        self.maximumPerKey = max(1, maximumPerKey)
        self.idleTimeout = idleTimeout
    }

    /// A usable connection for `key`: an idle one (`reused` is then `true`), or a new one from
    /// `connect`.
    func lease(
        _ key: ConnectionKey,
        connect: @Sendable () async throws -> HTTP1Connection
    ) async throws -> (connection: HTTP1Connection, reused: Bool) {
        guard !isShutDown else { throw SecureSessionError.sessionShutDown }
        while leased[key, default: 0] >= maximumPerKey {
            try await waitForSlot(key)
            guard !isShutDown else { throw SecureSessionError.sessionShutDown }
        }
        leased[key, default: 0] += 1
        while var available = idle[key], let connection = available.popLast() {
            idle[key] = available
            if connection.isUsable { return (connection, true) }
        }
        do {
            return (try await connect(), false)
        } catch {
            slotFreed(key)
            throw error
        }
    }

    /// Waits until a slot of `key` frees; a cancelled task stops waiting (a request's timeout
    /// cancels it), throwing `CancellationError`.
    private func waitForSlot(_ key: ConnectionKey) async throws {
        nextWaiterID += 1
        let id = nextWaiterID
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters[key, default: []].append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id, of: key) }
        }
    }

    private func cancelWaiter(_ id: UInt64, of key: ConnectionKey) {
        guard let index = waiters[key]?.firstIndex(where: { $0.id == id }) else { return }
        waiters[key]?.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    /// Gives a connection back: kept for the next request when `reusable`, closed otherwise.
    func release(_ connection: HTTP1Connection, reusable: Bool) {
        if reusable, connection.isUsable, !isShutDown {
            idle[connection.key, default: []].append(connection)
            let timeout = idleTimeout
            Task { [weak connection] in
                try? await Task.sleep(for: timeout)
                if let connection { self.expire(connection) }
            }
        } else {
            connection.close()
        }
        slotFreed(connection.key)
    }

    /// Closes `connection` if it is still idle (it was not leased again meanwhile).
    private func expire(_ connection: HTTP1Connection) {
        guard var available = idle[connection.key], let index = available.firstIndex(where: { $0 === connection }) else { return }
        available.remove(at: index)
        idle[connection.key] = available
        connection.close()
    }

    /// How many idle connections are kept for `key` (tests).
    func idleCount(for key: ConnectionKey) -> Int { idle[key]?.filter(\.isUsable).count ?? 0 }

    /// Closes every idle connection and refuses new leases.
    func shutdown() {
        isShutDown = true
        for connection in idle.values.joined() { connection.close() }
        idle.removeAll()
        for waiter in waiters.values.joined() { waiter.continuation.resume() }
        waiters.removeAll()
    }

    private func slotFreed(_ key: ConnectionKey) {
        leased[key, default: 1] -= 1
        if var queue = waiters[key], !queue.isEmpty {
            queue.removeFirst().continuation.resume()
            waiters[key] = queue
        }
    }
}
