import TransportSecurity
/// A `Content-Range` field of a byte range (RFC 9110 §14.4): the range a 206 carries, or the
/// length a 416 gives.
struct ContentRange: Equatable {
    /// The first byte position, `nil` for `bytes */length` (a 416's).
    let first: Int64?
    /// The last byte position, inclusive; `nil` with `first`.
    let last: Int64?
    /// The whole representation's length; `nil` when the server wrote `*`.
    let completeLength: Int64?
}

extension ContentRange {
    /// Reads `bytes first-last/length`, `bytes first-last/*` or `bytes */length`; `nil` for
    /// anything else (another unit, a last before the first, a length the range does not fit).
    init?(_ text: String?) {
        guard let text else { return nil }
        let trimmed = text.drop { $0 == " " }
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let parts = trimmed.dropFirst("bytes ".count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let length = parts[1] == "*" ? nil : Self.number(parts[1])
        guard parts[1] == "*" || length != nil else { return nil }
        if parts[0] == "*" {
            guard let length else { return nil }
            (first, last, completeLength) = (nil, nil, length)
            return
        }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last else { return nil }
        if let length, last >= length { return nil }
        (self.first, self.last, completeLength) = (first, last, length)
    }

    /// Digits only (no sign, no space), at most 18 of them.
    private static func number(_ text: Substring) -> Int64? {
        text.count <= 18 ? DecimalNumber.saturating(text.utf8) : nil
    }
}
