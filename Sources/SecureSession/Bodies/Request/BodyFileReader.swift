import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A request body's file read part by part, never held whole: as the body is sent, and before,
/// when its `Content-Digest` is made. It is opened when made and closed when dropped, and each
/// reading checks the same things: the file still has the length measured when the request was
/// made (the length announced in `Content-Length`), and holds no forbidden bytes (its multipart
/// form's boundary), also where two parts meet.
struct BodyFileReader: ~Copyable {
    private let path: String
    private let length: Int64
    private let descriptor: Int32
    private var search: ForbiddenBytesSearch?
    private var taken: Int64 = 0

    /// Opens the file at `path`, measured at `length` bytes.
    /// - Throws: ``SecureSessionError/unreadableUpload(_:underlying:)`` when it cannot be opened.
    init(path: String, length: Int64, forbidden: Data?) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SecureSessionError.unreadableUpload("\(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.length = length
        self.descriptor = descriptor
        self.search = forbidden.map { ForbiddenBytesSearch($0) }
    }

    deinit {
        close(descriptor)
    }

    /// The next part of at most ``RequestBodySource/partSize`` bytes, `nil` once the file has given its length.
    /// - Throws: ``SecureSessionError/unreadableUpload(_:underlying:)`` when the file cannot be read, its
    ///   length changed since it was measured (the server would get a body that is not the one
    ///   announced), or it holds its form's boundary.
    mutating func next() throws -> ByteBuffer? {
        var part = ByteBufferAllocator().buffer(capacity: RequestBodySource.partSize)
        var failure: Int32 = 0
        let count = part.writeWithUnsafeMutableBytes(minimumWritableBytes: RequestBodySource.partSize) { buffer in
            while true {
                let count = read(descriptor, buffer.baseAddress, RequestBodySource.partSize)
                if count >= 0 { return count }
                if errno != EINTR {
                    failure = errno
                    return 0
                }
            }
        }
        if failure != 0 { throw SecureSessionError.unreadableUpload("\(path): \(String(cString: strerror(failure)))") }
        taken += Int64(count)
        guard count > 0, taken <= length else {
            guard taken == length else {
                throw SecureSessionError.unreadableUpload("\(path) changed since it was measured (\(length) bytes announced, \(taken) read)")
            }
            return nil
        }
        if search?.isFound(in: part) == true {
            throw SecureSessionError.unreadableUpload(MultipartForm.holdsBoundary(path))
        }
        return part
    }
}
