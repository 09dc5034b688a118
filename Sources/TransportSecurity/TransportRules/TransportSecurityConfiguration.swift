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

    /// An empty configuration: ATS's defaults everywhere.
    public init() {}

    /// Whether `NSAllowsArbitraryLoads` counts: it is ignored when any of the narrower global
    /// keys is present (SPEC §6).
    public var arbitraryLoadsEffective: Bool {
        allowsArbitraryLoads == true && allowsArbitraryLoadsForMedia == nil && allowsArbitraryLoadsInWebContent == nil
            && allowsLocalNetworking == nil
    }
}
