import Foundation
import RawStructuredFieldValues
import TransportSecurity

/// The wait an answer asks for before the request is sent again: its `Retry-After` field (RFC
/// 9110 §10.2.3: a number of seconds, or an HTTP date, read in any of the three forms RFC 9110
/// §5.6.7 lets a recipient meet, with the cookie-date algorithm); without one, its rate-limit
/// fields (draft-ietf-httpapi-ratelimit-headers): the `RateLimit` field's quota policies with
/// nothing remaining (`"default";r=0;t=10`: the longest `t`), else, from the draft's earlier
/// form that gateways still send, `RateLimit-Reset` when `RateLimit-Remaining` is 0 or absent.
enum RetryAfter {
    /// The wait asked for by `head`, zero for a date already past; `nil` when there is no such
    /// field or it is neither form.
    static func delay(in head: ResponseHead, now: Date) -> Duration? {
        guard let value = head.header("Retry-After")?.trimmingHTTPWhitespace, !value.isEmpty else { return rateLimitReset(in: head) }
        // Enormous numbers saturate: they are longer than any wait obeyed.
        if let seconds = DecimalNumber.saturating(value.utf8) { return .seconds(seconds) }
        guard let date = CookieDate.parse(value) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .nanoseconds(Int64(min(seconds, 1e9) * 1e9)) : .zero
    }

    /// The wait until the quota that ran out comes back, from the rate-limit fields; `nil` when
    /// none says one ran out.
    static func rateLimitReset(in head: ResponseHead) -> Duration? {
        let fields = head.headers.filter { $0.name.equalsIgnoringASCIICase("RateLimit") }.map(\.value)
        if !fields.isEmpty {
            var parser = StructuredFieldValueParser(Array(fields.joined(separator: ", ").utf8))
            guard let list = try? parser.parseListFieldValue() else { return nil }
            let waits = list.compactMap { member -> Int64? in
                guard case .item(let item) = member,
                      case .integer(let remaining)? = item.rfc9651Parameters["r"], remaining <= 0,
                      case .integer(let reset)? = item.rfc9651Parameters["t"], reset >= 0
                else { return nil }
                return reset
            }
            return waits.max().map { .seconds($0) }
        }
        guard let reset = head.header("RateLimit-Reset")?.trimmingHTTPWhitespace, let seconds = DecimalNumber.saturating(reset.utf8) else { return nil }
        if let remaining = head.header("RateLimit-Remaining")?.trimmingHTTPWhitespace, remaining != "0" { return nil }
        return .seconds(seconds)
    }
}
