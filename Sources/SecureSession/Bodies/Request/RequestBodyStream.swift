import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// A request body made while it is sent (``SecureRequest/bodyStream``): rows of a report
/// written as a database yields them, an upload relayed from another connection, anything too
/// large or too slow to hold whole. Each write waits until the connection has taken the part
/// (TCP, or HTTP/2 flow control), so a slow server holds the producer back.
///
/// Without a known ``length``, HTTP/1.1 sends the body chunked and HTTP/2 without
/// `content-length`; with one, it is the `Content-Length`, and a producer that writes more or
/// fewer bytes fails the request (``SecureSessionError/unreadableUpload(_:underlying:)``) without the
/// server taking a wrong body for a whole one. A producer's error fails the request the same
/// way, the connection closed (or the HTTP/2 stream reset) so that the server never sees the
/// body end.
///
/// The producer is called once per sending: a retry, a 307/308 redirect or an answered challenge
/// sends the body again by calling it again. One that cannot start over throws (as
/// ``once(_:length:)``'s does), and that sending fails.
public struct RequestBodyStream: Sendable {
    /// The body's length when known in advance, `nil` when it is not.
    public let length: Int64?
    let produce: @Sendable (RequestBodyWriter) async throws -> Void

    /// A body whose parts `produce` writes, `length` bytes in all when given.
    public init(length: Int64? = nil, produce: @escaping @Sendable (RequestBodyWriter) async throws -> Void) {
        self.length = length
        self.produce = produce
    }

    /// A body of the parts of `sequence`, which can be gone through once: sending it again
    /// fails with a sentence saying so.
    public static func once<Parts: AsyncSequence & Sendable>(_ sequence: Parts, length: Int64? = nil) -> RequestBodyStream where Parts.Element == Data {
        let used = NIOLockedValueBox(false)
        return RequestBodyStream(length: length) { writer in
            let alreadySent = used.withLockedValue { sent in
                defer { sent = true }
                return sent
            }
            guard !alreadySent else { throw BodyStreamReplayed() }
            for try await part in sequence { try await writer.write(part) }
        }
    }

    /// What ``once(_:length:)`` throws when it is asked to send its parts again.
    struct BodyStreamReplayed: Error, CustomStringConvertible {
        var description: String {
            "its parts were sent once already and cannot be sent again (a retry, a 307/308 redirect or an answered challenge needed them)"
        }
    }
}

/// Where a ``RequestBodyStream``'s producer writes the body.
public struct RequestBodyWriter: Sendable {
    let take: @Sendable (ByteBuffer) async throws -> Void

    /// Sends `data` as the next part of the body, returning once the connection has taken it.
    /// An empty part is nothing to send.
    public func write(_ data: Data) async throws {
        guard !data.isEmpty else { return }
        try await take(ByteBuffer(bytes: data))
    }

    /// Sends the UTF-8 bytes of `text` as the next part.
    public func write(_ text: String) async throws {
        try await write(Data(text.utf8))
    }
}
