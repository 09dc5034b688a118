/// Why a text is not a key of `NSExceptionDomains`, `NSPinnedDomains`, `TSKPinnedDomains` or a
/// pin-update document's `domains`: an entry under such a key would never match any host.
public struct DomainKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key as written.
    public let key: String
    /// What is wrong with it, and what to write instead.
    public let reason: String

    /// `'KEY' REASON`.
    public var description: String { "'\(key)' \(reason)" }
}
