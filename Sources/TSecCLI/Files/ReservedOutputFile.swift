import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An output file opened before the work whose results it will hold, so that a path that cannot
/// be written (a missing folder, a directory, no permission) is refused at once, not after a
/// long run whose results would then be lost.
final class ReservedOutputFile {
    /// The path, as the user gave it.
    let path: String
    private var descriptor: Int32

    /// Opens (creates or truncates) `path` for writing.
    init(_ path: String) throws(FileWriteFailure) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw FileWriteFailure(description: "cannot write \(path): \(FileWriting.lastReason)")
        }
    }

    /// Writes `contents` as the file's whole contents and closes it.
    func finish(with contents: Data) throws(FileWriteFailure) {
        var failure = FileWriting.writeAll(contents, to: descriptor)
        if close(descriptor) != 0, failure == nil { failure = FileWriting.lastReason }
        descriptor = -1
        if let failure { throw FileWriteFailure(description: "cannot write \(path): \(failure)") }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }
}
