import ArgumentParser
import Dispatch
import Foundation
import SecureSession

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `tsec get -T -` (standard input) and `-T` of a pipe or device: a body of unknown length, read
/// as it is sent and sent chunked (HTTP/1.1) or as it comes (HTTP/2), as curl sends them. What
/// was read is gone, so the body can be sent once: a retry, a 307/308 redirect or an answered
/// challenge that needs it again fails saying so.
enum StreamedUpload {
    /// Whether `-T path` is read as it is sent rather than measured first: standard input, or
    /// anything that exists and is not a regular file.
    static func isStreamed(_ path: String) -> Bool {
        guard path != "-" else { return true }
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT != S_IFREG && status.st_mode & S_IFMT != S_IFDIR
    }

    /// The parts of a file, read as they are asked for.
    private struct Parts: AsyncSequence, Sendable {
        typealias Element = Data
        let reader: PartReader

        struct AsyncIterator: AsyncIteratorProtocol {
            let reader: PartReader
            mutating func next() async throws -> Data? { try await reader.next() }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: reader) }
    }

    /// Reads parts on a thread of its own: a pipe may keep a read waiting for as long as its
    /// writer likes, which must not hold a thread of the task pool.
    private struct PartReader: @unchecked Sendable {
        let handle: FileHandle

        /// The next part, `nil` at the end.
        func next() async throws -> Data? {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(with: Result {
                        let part = try handle.read(upToCount: 64 * 1024)
                        return part?.isEmpty == false ? part : nil
                    })
                }
            }
        }
    }

    /// The body stream of `path` (`-`: standard input), opened now.
    static func stream(_ path: String) throws -> RequestBodyStream {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ValidationError("the upload \(path) cannot be opened: \(String(cString: strerror(errno)))") }
            handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        }
        // One part read at a time, the next once the connection took this one: a slow server
        // holds the reading back, and nothing piles up in memory.
        return .once(Parts(reader: PartReader(handle: handle)))
    }
}
