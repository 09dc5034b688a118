extension StringProtocol {
    /// Whether the text, as a header field's value, holds a control character HTTP does not allow
    /// there: any C0 control but the horizontal tab, or DEL (RFC 9110 §5.5).
    var holdsFieldValueControlCharacter: Bool {
        utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }
}
