/// Why revocation information could not be read or used.
public struct RevocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var detail: String
    /// The file or URL concerned, when there is one.
    public var source: String?

    /// Makes an error.
    public init(_ detail: String, source: String? = nil) {
        self.detail = detail
        self.source = source
    }

    /// The source and the detail.
    public var description: String { (source.map { "\($0): " } ?? "") + detail }
}
