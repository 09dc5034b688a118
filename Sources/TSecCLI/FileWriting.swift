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

    /// The system's reason for the last failed call.
    static var lastReason: String { String(cString: strerror(errno)) }
}
