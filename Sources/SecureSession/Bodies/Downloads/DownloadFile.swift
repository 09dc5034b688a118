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
/// file. A partial file being continued (``DownloadResumption``) is appended to in place: it
/// holds the start of the same body, so whatever is added keeps it one.
final class DownloadFile: @unchecked Sendable {
    let destination: String
    private let lock = NSLock()
    private var target: Target
    private var handle: FileHandle
    private var written: Int64
    private var isClosed = false

    /// The file the body goes to.
    private enum Target: Equatable {
        /// A temporary file beside the destination.
        case temporary(String)
        /// The destination, a partial file appended to.
        case partialDestination
        /// The destination, a device or pipe written as it is.
        case device
    }

    /// Opens where the body of a download to `destination` goes; with `appending`, a regular
    /// file already there that is not empty is appended to.
    init(destination: String, appending: Bool = false) throws(SecureSessionError) {
        self.destination = destination
        var status = stat()
        let exists = stat(destination, &status) == 0
        if exists, status.st_mode & S_IFMT == S_IFDIR {
            throw .fileError("\(destination) is a directory")
        }
        let isRegular = exists && status.st_mode & S_IFMT == S_IFREG
        written = 0
        if exists, !isRegular {
            target = .device
            // Opened without waiting: a named pipe nobody reads fails (ENXIO) instead of
            // blocking a thread of the task pool for good; writes then block as usual.
            let descriptor = open(destination, O_WRONLY | O_CLOEXEC | O_NONBLOCK)
            if descriptor >= 0 { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) }
            handle = try Self.handle(descriptor, opening: destination)
        } else if appending, isRegular, status.st_size > 0 {
            target = .partialDestination
            written = Int64(status.st_size)
            handle = try Self.handle(open(destination, O_WRONLY | O_APPEND | O_CLOEXEC), opening: destination)
        } else {
            let (path, opened) = try Self.openTemporary(besides: destination)
            target = .temporary(path)
            handle = opened
        }
    }

    /// A new temporary file beside `destination`.
    private static func openTemporary(besides destination: String) throws(SecureSessionError) -> (String, FileHandle) {
        let path = destination + ".part-" + UUID().uuidString
        return (path, try handle(open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666), opening: path))
    }

    private static func handle(_ descriptor: Int32, opening path: String) throws(SecureSessionError) -> FileHandle {
        guard descriptor >= 0 else {
            let reason = errno == ENXIO ? "a named pipe that nobody reads" : String(cString: strerror(errno))
            throw .fileError("cannot open \(path): \(reason)")
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// The file being written.
    private var writtenPath: String {
        if case .temporary(let path) = target { return path }
        return destination
    }

    /// How many bytes the file holds: a partial file's own, and those written since.
    var length: Int64 { lock.withLock { written } }

    /// Whether the body goes straight to a device or pipe (written as it arrives, never taken
    /// back).
    var isDevice: Bool { lock.withLock { target == .device } }

    /// Appends a part of the body.
    func write(_ buffer: ByteBuffer) throws {
        try lock.withLock {
            do {
                // Written from the buffer's own bytes, not a copy of them.
                try buffer.withUnsafeReadableBytes { try handle.write(contentsOf: $0) }
                written += Int64(buffer.readableBytes)
            } catch {
                throw SecureSessionError.fileError("cannot write \(writtenPath): \(CertificateLoader.describe(error))")
            }
        }
    }

    /// Whether what was written can be taken back: `false` when a device or pipe (which cannot
    /// take back what it was given) was written to.
    var canStartOver: Bool { lock.withLock { canStartOverLocked } }

    /// Starts the body over, empty: a temporary file is emptied; a partial destination is left
    /// as it is and the body goes to a new temporary file instead (the destination is replaced
    /// only by a whole body).
    func startOver() throws {
        try lock.withLock {
            guard !isClosed, canStartOverLocked else { throw SecureSessionError.fileError("\(destination) cannot take back what was written to it") }
            switch target {
            case .temporary:
                do {
                    try handle.truncate(atOffset: 0)
                } catch {
                    throw SecureSessionError.fileError("cannot empty \(writtenPath): \(CertificateLoader.describe(error))")
                }
            case .partialDestination:
                try? handle.close()
                let (path, opened) = try Self.openTemporary(besides: destination)
                (target, handle) = (.temporary(path), opened)
            case .device:
                break
            }
            written = 0
        }
    }

    private var canStartOverLocked: Bool { target != .device || written == 0 }

    /// Puts the finished file in place of the destination.
    func commit() throws {
        try close()
        guard case .temporary(let temporary) = target else { return }
        guard rename(temporary, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw SecureSessionError.fileError("cannot move the download to \(destination): \(reason)")
        }
    }

    /// After a failure: the temporary file is removed and the destination stays as it was (a
    /// device or pipe written directly keeps what it was given, a partial file what was added),
    /// unless `keepingPartial`, when a temporary file holding the start of a body takes the
    /// destination's place for a later download to continue.
    func discard(keepingPartial: Bool = false) {
        try? close()
        guard case .temporary(let temporary) = target else { return }
        if keepingPartial, length > 0, rename(temporary, destination) == 0 { return }
        unlink(temporary)
    }

    private func close() throws {
        try lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            do {
                try handle.close()
            } catch {
                throw SecureSessionError.fileError("cannot write \(writtenPath): \(CertificateLoader.describe(error))")
            }
        }
    }
}
