extension StringProtocol {
    /// The text without HTTP's optional white space at either end: spaces and horizontal tabs
    /// only (RFC 9110's `OWS`, RFC 6265's `WSP`). Foundation's `CharacterSet.whitespaces` also
    /// holds the no-break space, the other Unicode space separators and, on Linux, U+200B ZERO
    /// WIDTH SPACE, which a peer could put around a cookie's name to have it taken for another.
    var trimmingHTTPWhitespace: String {
        let isWhitespace = { (scalar: Unicode.Scalar) in scalar == " " || scalar == "\t" }
        let scalars = String(self).unicodeScalars
        guard let start = scalars.firstIndex(where: { !isWhitespace($0) }), let last = scalars.lastIndex(where: { !isWhitespace($0) }) else {
            return ""
        }
        return String(scalars[start...last])
    }
}
