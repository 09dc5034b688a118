import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Looks for a byte sequence in a stream read part by part (a multipart form's boundary in a
/// file it sends), also where it would straddle two parts: the last bytes of each part are kept
/// to be searched with the start of the next.
struct ForbiddenBytesSearch {
    private let pattern: [UInt8]
    /// The end of the bytes searched so far, one byte shorter than `pattern`.
    private var tail: [UInt8] = []

    init(_ pattern: Data) {
        self.pattern = Array(pattern)
    }

    /// Whether `pattern` ends in `part` (wholly in it, or begun in the parts before).
    mutating func isFound(in part: ByteBuffer) -> Bool {
        guard !pattern.isEmpty else { return false }
        return part.withUnsafeReadableBytes { bytes in
            let keep = pattern.count - 1
            let head = Array(bytes.prefix(keep))
            if Self.contains(tail + head, pattern) || Self.contains(bytes, pattern) { return true }
            tail = Array((tail + bytes.suffix(keep)).suffix(keep))
            return false
        }
    }

    /// Whether `needle` (not empty) is in `haystack`: each occurrence of its first byte found by
    /// `memchr`, the rest compared by `memcmp`.
    private static func contains(_ haystack: some ContiguousBytes, _ needle: [UInt8]) -> Bool {
        haystack.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { needle in
                guard let start = haystack.baseAddress, let wanted = needle.baseAddress, haystack.count >= needle.count else { return false }
                let first = Int32(needle[0])
                var offset = 0
                let lastStart = haystack.count - needle.count
                while offset <= lastStart {
                    guard let found = memchr(start + offset, first, lastStart - offset + 1) else { return false }
                    if memcmp(found, wanted, needle.count) == 0 { return true }
                    offset = start.distance(to: UnsafeRawPointer(found)) + 1
                }
                return false
            }
        }
    }
}
