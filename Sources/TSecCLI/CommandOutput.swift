import Foundation

/// Where a command writes: the process's standard streams, or buffers in tests.
public final class CommandOutput: @unchecked Sendable {
    private let lock = NSLock()
    private let writesToStandardStreams: Bool
    private var standardOutput = ""
    private var standardError = ""

    /// Whether standard error is a terminal someone watches: progress of long work is shown
    /// there only then (never in a file or a pipe stderr is redirected to).
    public let errorIsTerminal: Bool

    /// Writes to the process's stdout and stderr.
    public static func standardStreams() -> CommandOutput {
        CommandOutput(writesToStandardStreams: true, errorIsTerminal: isatty(2) == 1)
    }

    /// Collects what is written, for tests; `errorIsTerminal` plays a terminal on stderr.
    public static func capturing(errorIsTerminal: Bool = false) -> CommandOutput {
        CommandOutput(writesToStandardStreams: false, errorIsTerminal: errorIsTerminal)
    }

    private init(writesToStandardStreams: Bool, errorIsTerminal: Bool) {
        self.writesToStandardStreams = writesToStandardStreams
        self.errorIsTerminal = errorIsTerminal
    }

    /// Writes a line to standard output.
    public func line(_ text: String) { write(text + "\n", toError: false) }

    /// Writes raw bytes to standard output (a response body).
    public func bytes(_ data: Data) {
        if writesToStandardStreams {
            Self.writeToStandardStream(data, descriptor: 1)
            return
        }
        lock.withLock { standardOutput += String(decoding: data, as: UTF8.self) }
    }

    /// Writes a line to standard error.
    public func error(_ text: String) { write(text + "\n", toError: true) }

    /// Writes text to standard error as it is, without a line end.
    public func errorText(_ text: String) { write(text, toError: true) }

    /// What was written to standard output (capturing outputs only).
    public var stdout: String { lock.withLock { standardOutput } }

    /// What was written to standard error (capturing outputs only).
    public var stderr: String { lock.withLock { standardError } }

    private func write(_ text: String, toError: Bool) {
        if writesToStandardStreams {
            Self.writeToStandardStream(Data(text.utf8), descriptor: toError ? 2 : 1)
            return
        }
        lock.withLock {
            if toError { standardError += text } else { standardOutput += text }
        }
    }

    /// Writes to stdout or stderr. When the reader of stdout has gone (`tsec inspect … | head`),
    /// the process ends as any Unix tool does, by `SIGPIPE` (swift-nio ignores the signal, so
    /// the write fails with `EPIPE` instead, which Foundation's non-throwing write turns into a
    /// crash). A failed write to stderr has nowhere to be reported and is dropped.
    private static func writeToStandardStream(_ data: Data, descriptor: Int32) {
        do {
            try FileHandle(fileDescriptor: descriptor).write(contentsOf: data)
        } catch {
            guard descriptor == 1 else { return }
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
            exit(128 + SIGPIPE)
        }
    }
}
