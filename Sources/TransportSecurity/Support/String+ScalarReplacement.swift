extension String {
    /// The text with each Unicode scalar for which `replacement` gives text replaced by it, the
    /// others kept. Works by scalar, not by `Character`: a quote or a control character followed
    /// by a combining mark is one `Character` (which `replacingOccurrences` passes over), but
    /// still its own byte to whoever reads the text.
    package func replacingScalars(_ replacement: (Unicode.Scalar) -> String?) -> String {
        var result = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if let text = replacement(scalar) {
                result.append(contentsOf: text.unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
