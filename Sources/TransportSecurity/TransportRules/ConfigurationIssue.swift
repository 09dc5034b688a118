/// A problem found in a transport-security configuration: where (the key path, such as
/// `NSAppTransportSecurity.NSExceptionDomains.example.com.NSIncludesSubdomains`), how serious,
/// and what was done about it.
public struct ConfigurationIssue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How serious an issue is.
    public enum Severity: String, Sendable, Hashable, Codable {
        /// The value is wrong; it was ignored or replaced by the stricter choice.
        case error
        /// The value works but is risky or has no effect.
        case warning
    }

    /// How serious.
    public let severity: Severity
    /// Where, as dot-separated keys.
    public let keyPath: String
    /// What is wrong and what was done.
    public let message: String

    /// Creates an issue.
    public init(_ severity: Severity, _ keyPath: String, _ message: String) {
        self.severity = severity
        self.keyPath = keyPath
        self.message = message
    }

    /// `error: KEY.PATH: message`.
    public var description: String { "\(severity.rawValue): \(keyPath): \(message)" }
}
