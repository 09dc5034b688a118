/// A whole number written in ASCII digits, as header fields and event streams write them
/// (`max-age`, `Max-Age`, `Retry-After`, `Content-Range`, an event stream's `retry`): no sign, no
/// space, no other character.
package enum DecimalNumber {
    /// The value of `text`; `nil` when it is empty or holds anything but digits. A number too
    /// long for 64 bits is still a number: the longest there is.
    package static func saturating(_ text: some Collection<UInt8>) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        var overflowed = false
        for byte in text {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (shifted, shiftOverflowed) = value.multipliedReportingOverflow(by: 10)
            let (added, addOverflowed) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            overflowed = overflowed || shiftOverflowed || addOverflowed
            value = added
        }
        return overflowed ? Int64.max : value
    }
}
