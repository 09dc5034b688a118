import NIOHTTP1

extension StringProtocol {
    /// Whether the text, as a header field's value, holds a control character HTTP does not allow
    /// there: any C0 control but the horizontal tab, or DEL (RFC 9110 §5.5).
    var holdsFieldValueControlCharacter: Bool {
        utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }
}

extension HTTPHeaders {
    /// Whether a `Connection` field names the `close` option (RFC 9112 §9.6), compared without
    /// case: the connection ends after the exchange. Reads the bytes in place: swift-nio's
    /// `isKeepAlive` cost four allocations per request once every request said
    /// `Connection: keep-alive`.
    var namesConnectionClose: Bool {
        contains { field in
            guard field.name.equalsIgnoringASCIICase("Connection") else { return false }
            let bytes = field.value.utf8
            var start = bytes.startIndex
            while true {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.endIndex
                if Self.isClose(bytes[start..<end]) { return true }
                guard end < bytes.endIndex else { return false }
                start = bytes.index(after: end)
            }
        }
    }

    /// Whether `option`, less the spaces and tabs around it, is `close` in any case.
    private static func isClose(_ option: Substring.UTF8View) -> Bool {
        guard let first = option.firstIndex(where: { !$0.isHTTPWhitespace }), let last = option.lastIndex(where: { !$0.isHTTPWhitespace }) else { return false }
        return option[first...last].elementsEqual("close".utf8) { ($0 | 0x20) == $1 }
    }
}
