/// Why SCTs or a log list could not be read.
public struct CertificateTransparencyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var detail: String
    /// Makes an error.
    public init(_ detail: String) { self.detail = detail }
    /// The detail.
    public var description: String { detail }
}
