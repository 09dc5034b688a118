import Foundation
import NIOConcurrencyHelpers
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a request's body is sent from: bytes held in memory, files and bytes read part by part
/// as they are sent (``SecureRequest/bodyFile``, ``SecureRequest/bodyParts``), never held whole,
/// or a producer writing it as it is sent (``SecureRequest/bodyStream``). A file is opened afresh,
/// and a producer called again, for every sending, so a retry, a 307/308 redirect or an answered
/// challenge sends it from its start. With an upload progress handler, bytes in memory are sent
/// part by part too, each part reported once the connection has taken it.
struct RequestBodySource: Sendable {
    enum Content: Sendable {
        case bytes(ByteBuffer)
        case parts([MeasuredPart])
        case stream(RequestBodyStream)
    }

    /// A part of ``Content/parts(_:)``, a file measured when the request is sent.
    enum MeasuredPart: Sendable {
        case bytes(ByteBuffer)
        /// A file of `length` bytes, which must not hold `forbidden` (its form's boundary).
        case file(path: String, length: Int64, forbidden: Data?)

        var length: Int64 {
            switch self {
            case .bytes(let buffer): Int64(buffer.readableBytes)
            case .file(_, let length, _): length
            }
        }
    }

    let content: Content
    /// Told after every part taken (``SecureRequest/uploadProgress``).
    let progress: (@Sendable (UploadProgress) -> Void)?

    /// Whether the body goes part by part after the head (a file, or anything whose progress is
    /// reported) rather than in one write with it.
    var isStreamed: Bool {
        if case .bytes = content { return progress != nil }
        return true
    }

    /// The bytes to write with the head, for a body that is not streamed.
    var bytesWithHead: ByteBuffer? {
        guard !isStreamed, case .bytes(let buffer) = content else { return nil }
        return buffer
    }

    /// The size of a file part.
    static let partSize = 64 * 1024

    /// The source of `request`'s body, or `nil` for none; files are measured now (their lengths
    /// go in `Content-Length`).
    /// - Throws: ``SecureSessionError/unreadableUpload(_:underlying:)`` for a file that cannot be read.
    static func of(_ request: SecureRequest) throws -> RequestBodySource? {
        switch request.content {
        case nil:
            return nil
        case .data(let data):
            return RequestBodySource(content: .bytes(ByteBuffer(bytes: data)), progress: request.uploadProgress)
        case .file(let path):
            return RequestBodySource(content: .parts([try measured(path, forbidden: nil)]), progress: request.uploadProgress)
        case .parts(let parts):
            let measuredParts = try parts.map { part throws -> MeasuredPart in
                switch part.source {
                case .data(let data): .bytes(ByteBuffer(bytes: data))
                case .file(let path): try measured(path, forbidden: part.forbidden)
                }
            }
            return RequestBodySource(content: .parts(measuredParts), progress: request.uploadProgress)
        case .stream(let stream):
            return RequestBodySource(content: .stream(stream), progress: request.uploadProgress)
        }
    }

    /// The file at `path`, measured.
    private static func measured(_ path: String, forbidden: Data?) throws -> MeasuredPart {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw SecureSessionError.unreadableUpload("\(path): \(String(cString: strerror(errno)))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw SecureSessionError.unreadableUpload("\(path): not a regular file (its length must be known before sending)")
        }
        return .file(path: path, length: Int64(status.st_size), forbidden: forbidden)
    }

    /// The body's length; `nil` for a stream of unknown length (sent chunked over HTTP/1.1).
    var length: Int64? {
        switch content {
        case .bytes(let buffer): return Int64(buffer.readableBytes)
        case .parts(let parts): return parts.reduce(0) { $0 + $1.length }
        case .stream(let stream): return stream.length
        }
    }

    /// Hands the body to `send` part by part, waiting for each part to be taken, and reports
    /// the bytes sent after each part (an empty body once, as all of nothing).
    /// - Throws: ``SecureSessionError/unreadableUpload(_:underlying:)`` when a file cannot be read, its
    ///   length changed since it was measured (the server would get a body that is not the
    ///   announced one), or it holds its form's boundary.
    func send(_ send: @escaping (ByteBuffer) async throws -> Void) async throws {
        let total = length
        var sent: Int64 = 0
        func hand(_ part: ByteBuffer) async throws {
            try await send(part)
            sent += Int64(part.readableBytes)
            progress?(UploadProgress(bytesSent: sent, totalBytes: total))
        }
        if total == 0 { progress?(UploadProgress(bytesSent: 0, totalBytes: 0)) }
        if case .stream(let stream) = content {
            try await Self.send(stream, through: hand)
            return
        }
        var parts = try self.parts()
        while let part = try parts.next() { try await hand(part) }
    }

    /// The reader of a body that is not a stream, part by part as ``send(_:)`` sends it (files
    /// with its checks). This is how a body is known before it is sent (its `Content-Digest`).
    /// - Throws: ``SecureSessionError/unreadableUpload(_:underlying:)`` for a stream (its bytes exist only
    ///   as it is sent).
    func parts() throws -> BodyPartReader {
        switch content {
        case .bytes(let buffer): BodyPartReader([.bytes(buffer)])
        case .parts(let parts): BodyPartReader(parts)
        case .stream: throw SecureSessionError.unreadableUpload("a streamed body cannot be read before it is sent")
        }
    }

    /// Runs `stream`'s producer, each part handed over by `hand`; a producer that fails, or
    /// writes other than the bytes announced, fails the sending as an unreadable upload (the
    /// body is then never ended: the server cannot take it for whole). A failure of the
    /// connection itself is rethrown as it is, whatever the producer made of it, so that an
    /// answer the server gave before taking the whole body (a 413) is still read.
    private static func send(_ stream: RequestBodyStream, through hand: @escaping (ByteBuffer) async throws -> Void) async throws {
        let state = NIOLockedValueBox(WriterState())
        let handOver = UncheckedHandOver(hand: hand)
        let writer = RequestBodyWriter { part in
            let refusal: String? = state.withLockedValue { state in
                let total = state.count + Int64(part.readableBytes)
                let refusal: String? =
                    if state.isOver {
                        "the body stream wrote after its producer returned: the body was over"
                    } else if state.isWriting {
                        "the body stream wrote a part before the last one was taken (write one part at a time, awaiting each)"
                    } else if let length = stream.length, total > length {
                        "the body stream wrote more than the \(length) bytes announced"
                    } else {
                        nil
                    }
                if let refusal {
                    state.failure = state.failure ?? SecureSessionError.unreadableUpload(refusal)
                } else {
                    (state.count, state.isWriting) = (total, true)
                }
                return refusal
            }
            if let refusal { throw SecureSessionError.unreadableUpload(refusal) }
            do {
                try await handOver.hand(part)
            } catch {
                state.withLockedValue { $0.failure = $0.failure ?? error }
                throw error
            }
            state.withLockedValue { $0.isWriting = false }
        }
        // A writer kept past the producer's return must not reach the connection.
        defer { state.withLockedValue { $0.isOver = true } }
        do {
            try await stream.produce(writer)
        } catch {
            if let failure = state.withLockedValue({ $0.failure }) { throw failure }
            if error is CancellationError { throw error }
            throw SecureSessionError.unreadableUpload("the body stream failed: \(error)")
        }
        let (total, failure) = state.withLockedValue { ($0.count, $0.failure) }
        // A producer that swallowed a refusal or a connection failure does not make it right.
        if let failure { throw failure }
        if let length = stream.length, total != length {
            throw SecureSessionError.unreadableUpload("the body stream wrote \(total) bytes, \(length) announced")
        }
    }

    /// What a body stream's writer has done.
    private struct WriterState {
        var count: Int64 = 0
        var isWriting = false
        var isOver = false
        /// The first refusal of the writer's, or failure of the connection's.
        var failure: (any Error)?
    }
}

/// The connection's taker of parts, for the producer's writer: overlapping writes, and writes
/// after the producer returned, are refused before they reach it, so the closure is only called
/// within the sending, one part at a time.
private struct UncheckedHandOver: @unchecked Sendable {
    let hand: (ByteBuffer) async throws -> Void
}
