import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A new file only its owner may read: created with mode 0600 by the `open` call itself, never
/// over an existing file and never through a symbolic link. (`FileManager.createFile(atPath:
/// contents:attributes:)` writes a temporary file with the default mode, renames it into place
/// and only then changes its mode: for a moment a private key is readable by others.)
enum OwnerOnlyFile {
    /// Creates `path` with `contents`. On failure nothing is left at `path`.
    static func create(_ path: String, contents: Data) throws(FileWriteFailure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "it already exists" : FileWriting.lastReason
            throw FileWriteFailure(description: "cannot create \(path): \(reason)")
        }
        var failure = FileWriting.writeAll(contents, to: descriptor)
        if failure == nil, fsync(descriptor) != 0 { failure = FileWriting.lastReason }
        if close(descriptor) != 0, failure == nil { failure = FileWriting.lastReason }
        if let failure {
            unlink(path)
            throw FileWriteFailure(description: "cannot write \(path): \(failure)")
        }
    }
}
