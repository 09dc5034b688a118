import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a request's body is sent from: bytes held in memory, or a file read part by part as it
/// is sent (``SecureRequest/bodyFile``), never held whole. A file is opened afresh for every
/// sending, so a retry, a 307/308 redirect or an answered challenge sends it again from its start.
/// With an upload progress handler, bytes in memory are sent part by part too, each part
/// reported once the connection has taken it.
struct RequestBodySource: Sendable {
    enum Content: Sendable {
        case bytes(ByteBuffer)
        case file(path: String, length: Int64)
    }

    let content: Content
    /// Told after every part taken (``SecureRequest/uploadProgress``).
    let progress: (@Sendable (UploadProgress) -> Void)?

    /// Whether the body goes part by part after the head (a file, or anything whose progress is
    /// reported) rather than in one write with it.
    var isStreamed: Bool {
        if case .file = content { return true }
        return progress != nil
    }

    /// The bytes to write with the head, for a body that is not streamed.
    var bytesWithHead: ByteBuffer? {
        guard !isStreamed, case .bytes(let buffer) = content else { return nil }
        return buffer
    }

    /// The size of a file part.
    static let partSize = 64 * 1024

    /// The source of `request`'s body, or `nil` for none; a file is measured now (its length
    /// goes in `Content-Length`).
    /// - Throws: ``SecureSessionError/unreadableUpload(_:)`` for a file that cannot be read.
    static func of(_ request: SecureRequest) throws -> RequestBodySource? {
        if let path = request.bodyFile {
            var status = stat()
            guard stat(path, &status) == 0 else {
                throw SecureSessionError.unreadableUpload("\(path): \(String(cString: strerror(errno)))")
            }
            guard (status.st_mode & S_IFMT) == S_IFREG else {
                throw SecureSessionError.unreadableUpload("\(path): not a regular file (its length must be known before sending)")
            }
            return RequestBodySource(content: .file(path: path, length: Int64(status.st_size)), progress: request.uploadProgress)
        }
        return request.body.map { RequestBodySource(content: .bytes(ByteBuffer(bytes: $0)), progress: request.uploadProgress) }
    }

    /// The body's length.
    var length: Int64 {
        switch content {
        case .bytes(let buffer): return Int64(buffer.readableBytes)
        case .file(_, let length): return length
        }
    }

    /// Hands the body to `send` part by part, waiting for each part to be taken, and reports
    /// the bytes sent after each part (an empty body once, as all of nothing).
    /// - Throws: ``SecureSessionError/unreadableUpload(_:)`` when the file cannot be read or
    ///   its length changed since it was measured (the server would get a body that is not the
    ///   announced one).
    func send(_ send: (ByteBuffer) async throws -> Void) async throws {
        let total = length
        var sent: Int64 = 0
        func hand(_ part: ByteBuffer) async throws {
            try await send(part)
            sent += Int64(part.readableBytes)
            progress?(UploadProgress(bytesSent: sent, totalBytes: total))
        }
        switch content {
        case .bytes(var buffer):
            if total == 0 { progress?(UploadProgress(bytesSent: 0, totalBytes: 0)) }
            while let part = buffer.readSlice(length: min(Self.partSize, buffer.readableBytes)), part.readableBytes > 0 {
                try await hand(part)
            }
        case .file(let path, let length):
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw SecureSessionError.unreadableUpload("\(path): \(String(cString: strerror(errno)))")
            }
            defer { close(descriptor) }
            if length == 0 { progress?(UploadProgress(bytesSent: 0, totalBytes: 0)) }
            while true {
                var part = ByteBufferAllocator().buffer(capacity: Self.partSize)
                var failure: Int32 = 0
                let count = part.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.partSize) { buffer in
                    while true {
                        let count = read(descriptor, buffer.baseAddress, Self.partSize)
                        if count >= 0 { return count }
                        if errno != EINTR {
                            failure = errno
                            return 0
                        }
                    }
                }
                if failure != 0 { throw SecureSessionError.unreadableUpload("\(path): \(String(cString: strerror(failure)))") }
                if count == 0 { break }
                guard sent + Int64(count) <= length else {
                    sent += Int64(count)
                    break
                }
                try await hand(part)
            }
            guard sent == length else {
                throw SecureSessionError.unreadableUpload("\(path) changed while it was sent (\(length) bytes announced, \(sent) read)")
            }
        }
    }
}
