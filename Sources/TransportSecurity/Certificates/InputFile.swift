import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole input file for the loaders of this package: a regular file, a pipe
/// (`--chain <(openssl s_client …)`, `/dev/stdin`) or a device such as `/dev/null`, which
/// Foundation's `Data(contentsOf:)` refuses as "permission denied". Never more than a limit, so
/// that `/dev/zero` or a wrong multi-gigabyte path ends in an error instead of exhausting memory.
package enum InputFile {
    /// The most read unless a caller says otherwise: 64 MiB, far beyond any certificate bundle,
    /// configuration, CRL or key file.
    package static let defaultLimit = 64 << 20

    /// Why a file could not be read; its description is the reason alone (callers name the file).
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// Nothing exists at the path.
        case missing
        /// The path is a directory.
        case directory
        /// The file holds more than the limit.
        case tooLarge(limit: Int)
        /// The system refused (the `strerror` text: permission denied, …).
        case system(String)

        package var description: String {
            switch self {
            case .missing: return "no such file"
            case .directory: return "it is a directory, not a file"
            case .tooLarge(let limit): return "it is larger than \(InputFile.size(limit)), more than such an input can be"
            case .system(let reason): return reason
            }
        }
    }

    /// The whole content of `path`, at most `limit` bytes.
    package static func read(_ path: String, limit: Int = defaultLimit) throws(Failure) -> Data {
        // `open` reads a C string: a NUL would end the path early, at another file.
        guard !path.utf8.contains(0) else { throw .system("the path holds a NUL character") }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw code == ENOENT ? .missing : code == EISDIR ? .directory : .system(String(cString: strerror(code)))
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR { throw .directory }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { readBytes(descriptor, into: $0) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                throw code == EISDIR ? .directory : .system(String(cString: strerror(code)))
            }
            guard data.count + count <= limit else { throw .tooLarge(limit: limit) }
            data.append(contentsOf: chunk[0..<count])
        }
    }

    /// `bytes` in the largest binary unit that divides it (64 MiB, 512 KiB, 100 bytes).
    static func size(_ bytes: Int) -> String {
        for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] where bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift) \(unit)"
        }
        return "\(bytes) bytes"
    }
}

/// The C library's `read(2)` (inside ``InputFile`` the name is the enum's own).
private func readBytes(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    read(descriptor, buffer.baseAddress, buffer.count)
}
