import Foundation

/// The date of a cookie's `Expires` attribute, read with RFC 6265's own algorithm (§5.1.1):
/// lenient about order and punctuation, as servers write these dates in many forms
/// (`Wed, 09 Jun 2021 10:18:14 GMT`, `Wednesday, 09-Jun-21 10:18:14 GMT`, `Wed Jun  9 10:18:14 2021`),
/// and strict about ranges (no 32nd day, no 25th hour, no year before 1601).
enum CookieDate {
    /// The date, or `nil` when the text is not a cookie date.
    static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in tokens(of: text) {
            if time == nil, let parsed = timeOfDay(token) {
                time = parsed
            } else if day == nil, let parsed = leadingNumber(token, digits: 1...2) {
                day = parsed
            } else if month == nil, let parsed = monthNumber(token) {
                month = parsed
            } else if year == nil, let parsed = leadingNumber(token, digits: 2...4) {
                year = parsed
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second)
        // A day the month does not have (February 30) is refused, not rolled over.
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
        return date
    }

    /// The date-tokens: runs of characters that are not delimiters (§5.1.1).
    private static func tokens(of text: String) -> [Substring] {
        text.split { character in
            guard let ascii = character.asciiValue else { return false }
            return ascii == 0x09 || (0x20...0x2F).contains(ascii) || (0x3B...0x40).contains(ascii)
                || (0x5B...0x60).contains(ascii) || (0x7B...0x7E).contains(ascii)
        }
    }

    /// 1 or 2 digits, `:`, 1 or 2 digits, `:`, 1 or 2 digits, then anything but a digit.
    private static func timeOfDay(_ token: Substring) -> (Int, Int, Int)? {
        let fields = token.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3 else { return nil }
        guard let hour = wholeNumber(fields[0], digits: 1...2), let minute = wholeNumber(fields[1], digits: 1...2),
            let second = leadingNumber(fields[2], digits: 1...2)
        else { return nil }
        return (hour, minute, second)
    }

    /// A number made of exactly `digits` leading digits, followed by nothing that is a digit.
    private static func leadingNumber(_ token: Substring, digits: ClosedRange<Int>) -> Int? {
        let leading = token.prefix { $0.isASCII && $0.isNumber }
        guard digits.contains(leading.count) else { return nil }
        return Int(leading)
    }

    /// A number that is the whole token, of `digits` digits.
    private static func wholeNumber(_ token: Substring, digits: ClosedRange<Int>) -> Int? {
        guard token.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return leadingNumber(token, digits: digits)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The month whose three-letter name the token starts with.
    private static func monthNumber(_ token: Substring) -> Int? {
        guard token.count >= 3 else { return nil }
        return months.firstIndex(of: token.prefix(3).lowercased()).map { $0 + 1 }
    }
}
