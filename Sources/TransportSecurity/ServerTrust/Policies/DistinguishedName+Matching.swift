import X509

extension DistinguishedName {
    /// Whether this name lies in the directoryName subtree `base` (RFC 5280 §4.2.1.10): its
    /// first relative names match all of `base`'s, as RFC 5280 §7.1 compares names, not their
    /// encodings (`CN=Example` as a PrintableString and as a UTF8String, or as `example` or
    /// ` Example `, is one name). Comparing bytes would let a CA constrained to exclude
    /// `O=Evil` issue for `O=evil`.
    func isWithin(directorySubtree base: DistinguishedName) -> Bool {
        let names = Array(self)
        let bases = Array(base)
        guard names.count >= bases.count else { return false }
        return zip(names, bases).allSatisfy { $0.matches($1) }
    }
}

extension RelativeDistinguishedName {
    /// Whether both hold the same attributes, in any order (an RDN is a set).
    func matches(_ other: RelativeDistinguishedName) -> Bool {
        let mine = Array(self)
        let theirs = Array(other)
        guard mine.count == theirs.count else { return false }
        var unmatched = theirs
        for attribute in mine {
            guard let index = unmatched.firstIndex(where: { attribute.matches($0) }) else { return false }
            unmatched.remove(at: index)
        }
        return true
    }
}

extension RelativeDistinguishedName.Attribute {
    /// Same type, and values equal as text (RFC 4518's preparation, simplified: case folded,
    /// leading and trailing spaces dropped, inner runs of spaces made one) when both are
    /// strings swift-certificates reads (PrintableString, UTF8String, IA5String); otherwise
    /// equal encodings.
    func matches(_ other: RelativeDistinguishedName.Attribute) -> Bool {
        guard type == other.type else { return false }
        guard let mine = String(value), let theirs = String(other.value) else { return value == other.value }
        return Self.prepared(mine) == Self.prepared(theirs)
    }

    /// The text compared: lowercased, spaces trimmed and collapsed.
    static func prepared(_ text: String) -> String {
        text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
