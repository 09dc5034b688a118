import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Reachability
import TransportSecurity
import TransportSecurityNIO

/// Collects a body in memory, up to a limit: a body longer than the limit, or whose
/// `Content-Length` announces that it will be, is refused at its first byte past the limit (or at
/// its first part) with ``SecureSessionError/responseTooLarge(limit:)``.
final class BodyCollector: @unchecked Sendable {
    private let lock = NSLock()
    private let limit: Int
    private var collected = Data()

    init(limit: Int) { self.limit = limit }

    func append(_ buffer: ByteBuffer, of head: HTTPResponseHead) throws {
        try lock.withLock {
            if collected.isEmpty, let declared = head.headers.first(name: "Content-Length").flatMap({ Int($0) }), declared > limit {
                throw SecureSessionError.responseTooLarge(limit: limit)
            }
            guard buffer.readableBytes <= limit - collected.count else { throw SecureSessionError.responseTooLarge(limit: limit) }
            collected.append(contentsOf: buffer.readableBytesView)
        }
    }

    var data: Data { lock.withLock { collected } }

    /// Forgets what was collected (the body of an attempt that will be made again).
    func reset() { lock.withLock { collected = Data() } }
}
