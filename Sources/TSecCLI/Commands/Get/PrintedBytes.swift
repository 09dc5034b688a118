import Foundation
import SecureSession

/// The bytes of a body printed as it arrives, against `--max-filesize`.
final class PrintedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private let limit: Int?
    private var received: Int64 = 0

    init(limit: Int?) { self.limit = limit }

    /// Counts `bytes` more; past the limit, the transfer ends as a body held in memory would.
    func add(_ bytes: Int) throws {
        try lock.withLock {
            received += Int64(bytes)
            if let limit, received > limit { throw SecureSessionError.responseTooLarge(limit: limit) }
        }
    }

    var count: Int64 { lock.withLock { received } }
}
