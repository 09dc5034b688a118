import Foundation

/// Key-sorted JSON for command output: pretty-printed, or one object per line.
enum JSONOutput {
    /// `value` as pretty-printed JSON with sorted keys (`{}` if it cannot be encoded).
    static func encode(_ value: some Encodable) -> String {
        encode(value, formatting: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    /// `value` as JSON on one line with sorted keys: one object per line, for output that goes on
    /// as things happen (JSON Lines).
    static func line(_ value: some Encodable) -> String {
        encode(value, formatting: [.sortedKeys, .withoutEscapingSlashes])
    }

    private static func encode(_ value: some Encodable, formatting: JSONEncoder.OutputFormatting) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
