import Foundation

extension Unicode.Scalar {
    /// A space or a tab: the tab, or a character of Unicode's space-separator category (`Zs`),
    /// which is what Apple documents `CharacterSet.whitespaces` to be. Foundation's own set also
    /// holds U+200B ZERO WIDTH SPACE, a format character that Unicode does not call white space,
    /// so a name trimmed with it and a name checked with `properties.isWhitespace` disagreed.
    var isSpaceOrTab: Bool {
        self == "\t" || properties.generalCategory == .spaceSeparator
    }
}

extension String {
    /// The text without spaces and tabs (``Unicode/Scalar/isSpaceOrTab``) at either end; text
    /// with none there is returned as it is, without copying.
    var trimmingSpacesAndTabs: String {
        guard let firstByte = utf8.first, let lastByte = utf8.last else { return self }
        // An ASCII byte other than space and tab at both ends: nothing to trim (the usual case).
        let isPlainASCII = { (byte: UInt8) in byte < 0x80 && byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") }
        if isPlainASCII(firstByte), isPlainASCII(lastByte) { return self }
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.isSpaceOrTab }),
            let end = scalars.lastIndex(where: { !$0.isSpaceOrTab })
        else { return "" }
        return String(scalars[start...end])
    }
}

extension String {
    /// Whether every byte of the text is ASCII.
    var isASCII: Bool { utf8.allSatisfy { $0 < 0x80 } }
}

extension String {
    /// The text with ASCII letters lowercased and everything else as it is: DNS names compare
    /// case-insensitively in ASCII only (RFC 4343), while `lowercased()` also maps, say, the
    /// KELVIN SIGN U+212A to `k`, turning text that is no host name into one.
    var asciiLowercased: String {
        guard utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else { return self }
        return String(decoding: utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether the two texts are equal when ASCII letters are compared without case, byte for
    /// byte otherwise: how host names (RFC 4343) and HTTP field names (RFC 9110 §5.1) compare.
    /// Foundation's `caseInsensitiveCompare` folds Unicode too (`ß` and `ss`, the KELVIN SIGN and
    /// `k`), and is slow.
    package func equalsIgnoringASCIICase(_ other: String) -> Bool {
        utf8.elementsEqual(other.utf8) { left, right in
            left == right || ((left | 0x20) == (right | 0x20) && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(left | 0x20))
        }
    }
}

extension String {
    /// The ASCII (IDNA, `xn--…`) form of an internationalized host name, as `URL` converts a
    /// URL's host (UTS #46 mapping, then Punycode); `nil` for a name already in ASCII, one with
    /// a character that would end a URL's host (`/`, `?`, `#`, `@`, `:`, …) or white space, or one
    /// that has no such form.
    var idnaASCIIForm: String? {
        let delimiters: Set<Unicode.Scalar> = ["/", "?", "#", "@", ":", "[", "]", "%", "\\"]
        guard !isASCII,
            !unicodeScalars.contains(where: { delimiters.contains($0) || $0.value <= 0x20 || $0.properties.isWhitespace }),
            let host = URL(string: "http://\(self)/")?.host,
            !host.isEmpty, host.isASCII
        else { return nil }
        return host.asciiLowercased
    }
}
