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
    /// Why the file was not written.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Creates `path` with `contents`. On failure nothing is left at `path`.
    static func create(_ path: String, contents: Data) throws(Failure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "it already exists" : String(cString: strerror(errno))
            throw Failure(description: "cannot create \(path): \(reason)")
        }
        var failure: String?
        contents.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        if close(descriptor) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(path)
            throw Failure(description: "cannot write \(path): \(failure)")
        }
    }
}
