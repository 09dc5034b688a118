import Logging

/// Log lines on a command's standard error (`tsec get -v`): `* LEVEL message key=value…`, as
/// curl's `-v` marks its own lines. The session never logs keys or passphrases, and URLs arrive
/// with their passwords already replaced.
struct CommandOutputLogHandler: LogHandler {
    let output: CommandOutput
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }
        let details = fields.keys.sorted().map { "\($0)=\(fields[$0]!)" }.joined(separator: " ")
        output.error("* \(event.level) \(event.message)" + (details.isEmpty ? "" : " " + details))
    }
}
