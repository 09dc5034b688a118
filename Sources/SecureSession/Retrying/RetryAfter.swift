import Foundation

/// The wait a `Retry-After` field asks for (RFC 9110 §10.2.3): a number of seconds, or an HTTP
/// date (read in any of the three forms RFC 9110 §5.6.7 lets a recipient meet, with the
/// cookie-date algorithm).
enum RetryAfter {
    /// The wait asked for by `head`, zero for a date already past; `nil` when there is no such
    /// field or it is neither form.
    static func delay(in head: ResponseHead, now: Date) -> Duration? {
        guard let value = head.header("Retry-After")?.trimmingHTTPWhitespace, !value.isEmpty else { return nil }
        // Enormous numbers saturate: they are longer than any wait obeyed.
        if let seconds = DecimalNumber.saturating(value.utf8) { return .seconds(seconds) }
        guard let date = CookieDate.parse(value) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .nanoseconds(Int64(min(seconds, 1e9) * 1e9)) : .zero
    }
}
