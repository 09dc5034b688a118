extension String {
    /// The text with each control character (C0, DEL, C1) and each bidirectional formatting
    /// character written as `\u{1B}`: names from certificates and servers are shown to people
    /// and read by scripts, and an escape sequence, a line break or a right-to-left override in
    /// them would forge what is shown (a certificate whose common name ends in a line break and
    /// `trusted` would print a `trusted` line of its own). The text itself when it has none.
    package var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: Self.isHidden) else { return self }
        return replacingScalars { scalar in
            Self.isHidden(scalar) ? "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" : nil
        }
    }

    /// Whether `scalar` acts on a terminal or on the display of the text around it instead of
    /// showing as itself.
    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
