import Foundation

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
