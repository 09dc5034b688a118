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
enum RequestBodySource: Sendable {
    case bytes(ByteBuffer)
    case file(path: String, length: Int64)

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
            return .file(path: path, length: Int64(status.st_size))
        }
        return request.body.map { .bytes(ByteBuffer(bytes: $0)) }
    }

    /// The body's length.
    var length: Int64 {
        switch self {
        case .bytes(let buffer): return Int64(buffer.readableBytes)
        case .file(_, let length): return length
        }
    }

    /// Hands the body to `send` part by part, waiting for each part to be taken.
    /// - Throws: ``SecureSessionError/unreadableUpload(_:)`` when the file cannot be read or
    ///   its length changed since it was measured (the server would get a body that is not the
    ///   announced one).
    func send(_ send: (ByteBuffer) async throws -> Void) async throws {
        switch self {
        case .bytes(let buffer):
            try await send(buffer)
        case .file(let path, let length):
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw SecureSessionError.unreadableUpload("\(path): \(String(cString: strerror(errno)))")
            }
            defer { close(descriptor) }
            var sent: Int64 = 0
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
                sent += Int64(count)
                guard sent <= length else { break }
                try await send(part)
            }
            guard sent == length else {
                throw SecureSessionError.unreadableUpload("\(path) changed while it was sent (\(length) bytes announced, \(sent) read)")
            }
        }
    }
}
