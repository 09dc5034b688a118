/// Transport-security rules: the keys of an `NSAppTransportSecurity` dictionary (ATS), with
/// `NSPinnedDomains`, and TrustKit-style pin sets (`TSKPinnedDomains`). Load one with
/// ``load(from:source:)`` (Info.plist, XML or binary, or JSON with the same keys); resolve the
/// rule for a URL with ``rule(for:)``.
public struct TransportSecurityConfiguration: Sendable, Hashable {
    /// `NSAllowsArbitraryLoads`, if present.
    public var allowsArbitraryLoads: Bool?
    /// `NSAllowsArbitraryLoadsForMedia`, if present (it has no effect on a session; its presence
    /// makes `NSAllowsArbitraryLoads` ignored).
    public var allowsArbitraryLoadsForMedia: Bool?
    /// `NSAllowsArbitraryLoadsInWebContent`, if present (as above).
    public var allowsArbitraryLoadsInWebContent: Bool?
    /// `NSAllowsLocalNetworking`, if present.
    public var allowsLocalNetworking: Bool?
    /// `NSExceptionDomains`.
    public var exceptionDomains: [ExceptionDomain] = []
    /// `NSPinnedDomains`.
    public var pinnedDomains: [PinnedDomain] = []
    /// `TSKPinnedDomains`.
    public var pinSets: [DomainPinSet] = []
    /// Where the loaded document kept these keys, for the key paths of messages.
    public var keyPaths = KeyPaths()

    /// Where a document keeps the ATS keys and the pin sets (`NSAppTransportSecurity` in an
    /// Info.plist, nothing for a bare dictionary; `TSKPinnedDomains` or
    /// `TSKConfiguration.TSKPinnedDomains`). Only for messages: two configurations with the same
    /// rules are equal wherever their documents kept them.
    public struct KeyPaths: Sendable, Hashable {
        /// The path of the ATS dictionary (`NSAppTransportSecurity`, or empty).
        public var ats = "NSAppTransportSecurity"
        /// The path of the pin sets.
        public var pinSets = "NSAppTransportSecurity.TSKPinnedDomains"

        /// The default paths.
        public init() {}

        /// `key` under the ATS dictionary.
        public func ats(_ key: String) -> String { ats.isEmpty ? key : "\(ats).\(key)" }

        /// Always equal: key paths only word messages and never tell configurations apart.
        public static func == (lhs: KeyPaths, rhs: KeyPaths) -> Bool { true }
        /// Hashes nothing, as ``==(_:_:)`` compares nothing.
        public func hash(into hasher: inout Hasher) {}
    }

    /// An empty configuration: ATS's defaults everywhere.
    public init() {}

    /// Whether `NSAllowsArbitraryLoads` counts: it is ignored when any of the narrower global
    /// keys is present.
    public var arbitraryLoadsEffective: Bool {
        allowsArbitraryLoads == true && allowsArbitraryLoadsForMedia == nil && allowsArbitraryLoadsInWebContent == nil
            && allowsLocalNetworking == nil
    }
}
