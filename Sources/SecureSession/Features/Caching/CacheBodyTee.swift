import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// A copy of a response's body for the cache, taken as the body goes to the caller, up to the
/// largest response the cache keeps: past it, the copy is given up (the caller still gets the
/// whole body).
final class CacheBodyTee: Sendable {
    private let limit: Int
    private let copy = NIOLockedValueBox<Data?>(Data())

    init(limit: Int) { self.limit = limit }

    /// Adds `buffer` to the copy, or gives the copy up when it would pass the limit.
    func append(_ buffer: ByteBuffer) {
        copy.withLockedValue { data in
            guard data != nil else { return }
            if buffer.readableBytes > limit - data!.count {
                data = nil
            } else {
                data!.append(contentsOf: buffer.readableBytesView)
            }
        }
    }

    /// Starts the copy over (a new attempt of the request).
    func reset() { copy.withLockedValue { $0 = Data() } }

    /// The whole body, or `nil` when it was too large to keep.
    var body: Data? { copy.withLockedValue { $0 } }
}
