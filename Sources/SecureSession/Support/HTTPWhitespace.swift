extension StringProtocol {
    /// The text without HTTP's optional white space at either end: spaces and horizontal tabs
    /// only (RFC 9110's `OWS`, RFC 6265's `WSP`). Foundation's `CharacterSet.whitespaces` also
    /// holds the no-break space, the other Unicode space separators and, on Linux, U+200B ZERO
    /// WIDTH SPACE, which a peer could put around a cookie's name to have it taken for another.
    var trimmingHTTPWhitespace: String {
        let isWhitespace = { (byte: UInt8) in byte.isHTTPWhitespace }
        let text = String(self)
        // Nothing at either end to trim (the usual case): no second copy. Spaces and tabs are
        // single bytes that never occur inside a longer UTF-8 sequence, so bytes can be trimmed.
        guard let first = text.utf8.first, let last = text.utf8.last, isWhitespace(first) || isWhitespace(last) else { return text }
        let bytes = text.utf8
        guard let start = bytes.firstIndex(where: { !isWhitespace($0) }), let end = bytes.lastIndex(where: { !isWhitespace($0) }) else {
            return ""
        }
        return String(decoding: bytes[start...end], as: UTF8.self)
    }
}

extension UInt8 {
    /// Whether the byte is HTTP's optional white space: a space or a horizontal tab.
    var isHTTPWhitespace: Bool { self == UInt8(ascii: " ") || self == UInt8(ascii: "\t") }
}
