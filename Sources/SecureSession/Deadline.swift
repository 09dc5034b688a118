/// Runs `operation`, but gives up after `limit`: `onTimeout` runs (to close what the operation
/// waits on) and ``SecureSessionError/timeout(_:)`` is thrown. Task cancellation also runs
/// `onTimeout` and throws ``SecureSessionError/cancelled``.
func withDeadline<Value: Sendable>(
    _ limit: Duration,
    onTimeout: @escaping @Sendable () -> Void,
    operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withTaskCancellationHandler {
        try await withThrowingTaskGroup(of: Value.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: limit)
                onTimeout()
                throw SecureSessionError.timeout(limit)
            }
            defer { group.cancelAll() }
            do {
                guard let value = try await group.next() else { throw SecureSessionError.timeout(limit) }
                return value
            } catch is CancellationError {
                onTimeout()
                throw SecureSessionError.cancelled
            } catch {
                if Task.isCancelled {
                    onTimeout()
                    throw SecureSessionError.cancelled
                }
                throw error
            }
        }
    } onCancel: {
        onTimeout()
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
