import TransportSecurity
/// The directives of a message's `Cache-Control` fields (RFC 9111 §5.2), read the same way for
/// requests and responses: names without case, values as tokens or quoted strings, several
/// fields and lists joined. A directive given twice keeps its first value.
struct CacheControl: Sendable, Hashable {
    /// The directives by lowercased name; the value `nil` for a directive without one.
    private var directives: [String: String?] = [:]

    /// The directives of `fields` (the values of every `Cache-Control` field of a message).
    init(fields: [String]) {
        for field in fields {
            for item in Self.items(of: field) {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = parts[0].trimmingHTTPWhitespace.lowercased()
                guard !name.isEmpty, directives[name] == nil else { continue }
                let value = parts.count == 2 ? Self.unquoted(parts[1].trimmingHTTPWhitespace) : nil
                directives[name] = .some(value)
            }
        }
    }

    /// Whether the directive `name` (lowercased) is present, with or without a value.
    func has(_ name: String) -> Bool { directives[name] != nil }

    /// What a delta-seconds directive says (`max-age=60`): `nil` when absent; a value that is no
    /// delta-seconds (`max-age=soon`, `max-age=-1`, `max-age` alone) reads as 0, so that
    /// freshness it cannot tell is no freshness (§4.2.1); beyond 2³¹ reads as 2³¹ (§1.2.2).
    func seconds(_ name: String) -> Int? {
        guard let entry = directives[name] else { return nil }
        return Self.deltaSeconds(entry)
    }

    /// `max-stale`: `nil` when absent; without a value, any staleness (`Int.max`).
    var maximumStaleness: Int? {
        guard let entry = directives["max-stale"] else { return nil }
        return entry == nil ? Int.max : Self.deltaSeconds(entry)
    }

    /// Delta-seconds (§1.2.2): digits only; too large a value is 2³¹; anything else 0.
    static func deltaSeconds(_ text: String?) -> Int {
        guard let text, let value = DecimalNumber.saturating(text.utf8) else { return 0 }
        return Int(min(value, 1 << 31))
    }

    /// The comma-separated items of `field`, a comma inside a quoted string kept.
    private static func items(of field: String) -> [Substring] {
        var items: [Substring] = []
        var start = field.startIndex
        var quoted = false
        var escaped = false
        var index = field.startIndex
        while index < field.endIndex {
            let character = field[index]
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                items.append(field[start..<index])
                start = field.index(after: index)
            }
            index = field.index(after: index)
        }
        items.append(field[start..<field.endIndex])
        return items.filter { !$0.trimmingHTTPWhitespace.isEmpty }
    }

    /// A quoted string's content (`"a\"b"` is `a"b`), or the token as it is.
    private static func unquoted(_ text: String) -> String {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return text }
        var value = ""
        var escaped = false
        for character in text.dropFirst().dropLast() {
            if escaped || character != "\\" {
                value.append(character)
                escaped = false
            } else {
                escaped = true
            }
        }
        return value
    }
}
