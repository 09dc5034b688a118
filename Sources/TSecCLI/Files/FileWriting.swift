import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file the tool writes was not written: the path and the system's reason.
struct FileWriteFailure: Error, CustomStringConvertible {
    let description: String
}

/// Plain POSIX writing for files whose opening the tool controls itself.
enum FileWriting {
    /// Writes all of `contents` to `descriptor`, retrying interrupted and partial writes.
    /// Returns the system's reason when a write fails, `nil` when everything was written.
    static func writeAll(_ contents: Data, to descriptor: Int32) -> String? {
        contents.withUnsafeBytes { buffer -> String? in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return nil
        }
    }

    /// Replaces `path` with `contents` readable by its owner only: written to a new file of
    /// mode 0600 beside it, then renamed over it, so that no reader ever sees a partial file
    /// and no moment exists when others may read it.
    static func replaceOwnerOnly(_ path: String, contents: Data) throws(FileWriteFailure) {
        let temporary = path + ".tmp-\(UUID().uuidString.prefix(8))"
        try OwnerOnlyFile.create(temporary, contents: contents)
        guard rename(temporary, path) == 0 else {
            let reason = lastReason
            unlink(temporary)
            throw FileWriteFailure(description: "cannot write \(path): \(reason)")
        }
    }

    /// Refuses, before any work, a path ``replaceOwnerOnly(_:contents:)`` could not replace at
    /// the end: a directory, or a folder that is missing or not writable.
    static func checkReplaceable(_ path: String) throws(FileWriteFailure) {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw FileWriteFailure(description: "cannot write \(path): it is a directory")
        }
        let folder = (path as NSString).deletingLastPathComponent
        guard access(folder.isEmpty ? "." : folder, W_OK | X_OK) == 0 else {
            throw FileWriteFailure(description: "cannot write \(path): \(lastReason)")
        }
    }

    /// The system's reason for the last failed call.
    static var lastReason: String { String(cString: strerror(errno)) }
}
