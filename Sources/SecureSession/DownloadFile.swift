import Foundation
import NIOCore
import TransportSecurity

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a download is written: a temporary file beside the destination, filled as the body
/// arrives and renamed over the destination only once the response is accepted. `rename(2)`
/// replaces a file atomically (a reader sees the old file or the new one, never none or half of
/// one) and never replaces a directory; a destination that is a directory is refused before the
/// request is sent. A destination that exists and is not a regular file (`/dev/null`, a named
/// pipe, a terminal) is written to directly, as `curl -o` does: it must never be replaced by a
/// file.
final class DownloadFile: @unchecked Sendable {
    let destination: String
    /// The temporary file, or `nil` when the destination is written directly.
    private let temporary: String?
    private let lock = NSLock()
    private let handle: FileHandle
    private var isClosed = false

    /// Opens where the body of a download to `destination` goes.
    init(destination: String) throws(SecureSessionError) {
        self.destination = destination
        var status = stat()
        let exists = stat(destination, &status) == 0
        if exists, status.st_mode & S_IFMT == S_IFDIR {
            throw .fileError("\(destination) is a directory")
        }
        let descriptor: Int32
        if exists, status.st_mode & S_IFMT != S_IFREG {
            temporary = nil
            // Opened without waiting: a named pipe nobody reads fails (ENXIO) instead of
            // blocking a thread of the task pool for good; writes then block as usual.
            descriptor = open(destination, O_WRONLY | O_CLOEXEC | O_NONBLOCK)
            if descriptor >= 0 { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) }
        } else {
            let path = destination + ".part-" + UUID().uuidString
            temporary = path
            descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        }
        guard descriptor >= 0 else {
            let reason = errno == ENXIO ? "a named pipe that nobody reads" : String(cString: strerror(errno))
            throw .fileError("cannot open \(temporary ?? destination): \(reason)")
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// The file being written.
    private var written: String { temporary ?? destination }

    /// Appends a part of the body.
    func write(_ buffer: ByteBuffer) throws {
        try lock.withLock {
            do {
                try handle.write(contentsOf: Data(buffer.readableBytesView))
            } catch {
                throw SecureSessionError.fileError("cannot write \(written): \(CertificateLoader.describe(error))")
            }
        }
    }

    /// Whether what was written can be taken back: `false` when the destination is written
    /// directly (a pipe or device cannot take back what it was given).
    var canStartOver: Bool { temporary != nil }

    /// Empties the temporary file for the body of another attempt; `false` when it cannot.
    func startOver() -> Bool {
        guard canStartOver else { return false }
        return lock.withLock {
            guard !isClosed, (try? handle.truncate(atOffset: 0)) != nil else { return false }
            return true
        }
    }

    /// Puts the finished file in place of the destination.
    func commit() throws {
        try close()
        guard let temporary else { return }
        guard rename(temporary, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw SecureSessionError.fileError("cannot move the download to \(destination): \(reason)")
        }
    }

    /// Removes the temporary file: the destination stays as it was (a device or pipe written
    /// directly keeps what it was given).
    func discard() {
        try? close()
        if let temporary { unlink(temporary) }
    }

    private func close() throws {
        try lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            do {
                try handle.close()
            } catch {
                throw SecureSessionError.fileError("cannot write \(written): \(CertificateLoader.describe(error))")
            }
        }
    }
}
