import Foundation

/// Where a command writes: the process's standard streams, or buffers in tests.
public final class CommandOutput: @unchecked Sendable {
    private let lock = NSLock()
    private let writesToStandardStreams: Bool
    private var standardOutput = ""
    private var standardError = ""

    /// Writes to the process's stdout and stderr.
    public static func standardStreams() -> CommandOutput { CommandOutput(writesToStandardStreams: true) }

    /// Collects what is written, for tests.
    public static func capturing() -> CommandOutput { CommandOutput(writesToStandardStreams: false) }

    private init(writesToStandardStreams: Bool) { self.writesToStandardStreams = writesToStandardStreams }

    /// Writes a line to standard output.
    public func line(_ text: String) { write(text + "\n", toError: false) }

    /// Writes raw bytes to standard output (a response body).
    public func bytes(_ data: Data) {
        if writesToStandardStreams {
            FileHandle(fileDescriptor: 1).write(data)
            return
        }
        lock.withLock { standardOutput += String(decoding: data, as: UTF8.self) }
    }

    /// Writes a line to standard error.
    public func error(_ text: String) { write(text + "\n", toError: true) }

    /// What was written to standard output (capturing outputs only).
    public var stdout: String { lock.withLock { standardOutput } }

    /// What was written to standard error (capturing outputs only).
    public var stderr: String { lock.withLock { standardError } }

    private func write(_ text: String, toError: Bool) {
        if writesToStandardStreams {
            FileHandle(fileDescriptor: toError ? 2 : 1).write(Data(text.utf8))
            return
        }
        lock.withLock {
            if toError { standardError += text } else { standardOutput += text }
        }
    }
}
