import Foundation
import Logging

/// Keeps what a logger was told, for tests that check what is logged, and what never is.
public final class LogRecording: @unchecked Sendable {
    /// One log line: its level, message and metadata (values as text).
    public struct Entry: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: [String: String]

        /// The message and every metadata value on one line.
        public var text: String {
            ([message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        }
    }

    private let lock = NSLock()
    private var kept: [Entry] = []

    public init() {}

    /// A logger at `trace` level whose lines are kept here.
    public var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(recording: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Every line so far, in order.
    public var entries: [Entry] { lock.withLock { kept } }

    /// Every line so far as text, one per line.
    public var text: String { entries.map(\.text).joined(separator: "\n") }

    fileprivate func append(_ entry: Entry) { lock.withLock { kept.append(entry) } }

    private struct Handler: LogHandler {
        let recording: LogRecording
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            recording.append(Entry(
                level: event.level,
                message: "\(event.message)",
                metadata: merged.mapValues { "\($0)" }
            ))
        }
    }
}
