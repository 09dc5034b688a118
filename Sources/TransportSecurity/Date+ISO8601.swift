import Foundation

extension Date {
    /// An ISO 8601 internet time, with or without fractional seconds (`2027-01-31T00:00:00Z`,
    /// `2027-01-31T00:00:00.5Z`, `2027-01-31T09:00:00+09:00`), as signed documents, log lists
    /// and `--at` write them; or, with `dateOnly`, a day (`2027-01-31`, midnight UTC).
    ///
    /// A field out of its range is refused (`2030-02-30`, `2029-02-29`, `25:00`, `23:61`):
    /// Foundation's parser rolls such a field over into the next one (March 2, the next day), so
    /// that a typo in an expiry date would silently move it.
    package init?(iso8601 text: String, dateOnly: Bool = false) {
        guard Self.fieldsAreInRange(text, dateOnly: dateOnly) else { return nil }
        let full = dateOnly ? text + "T00:00:00Z" : text
        let parsed = (try? Date(full, strategy: .iso8601)) ?? (try? Date(full, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        guard let parsed else { return nil }
        self = parsed
    }

    /// Whether the date (`YYYY-MM-DD`) and, unless `dateOnly`, the time (`THH:MM:SS`) that start
    /// `text` name a day the month has and a time of day.
    private static func fieldsAreInRange(_ text: String, dateOnly: Bool) -> Bool {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), (1...12).contains(month) else {
            return false
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        guard let first = calendar.date(from: DateComponents(year: year, month: month, day: 1)),
            let days = calendar.range(of: .day, in: .month, for: first), days.contains(day)
        else { return false }
        if dateOnly { return bytes.count == 10 }
        guard let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return false }
        return hour <= 23 && minute <= 59 && second <= 59
    }
}
