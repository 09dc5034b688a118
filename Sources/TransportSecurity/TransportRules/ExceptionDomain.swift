/// One entry of `NSExceptionDomains`: the rules for a domain (and, with
/// ``includesSubdomains``, every name below it), an IP address or a range. An entry, even
/// empty, overrides every global key for what it covers.
public struct ExceptionDomain: Sendable, Hashable {
    /// The domain, address or range.
    public var key: DomainKey
    /// `NSIncludesSubdomains`: also every name below the domain (no effect on addresses).
    public var includesSubdomains = false
    /// `NSExceptionAllowsInsecureHTTPLoads`: cleartext `http://` allowed.
    public var allowsInsecureHTTPLoads = false
    /// `NSExceptionMinimumTLSVersion`: the oldest TLS version accepted (default TLS 1.2).
    public var minimumTLSVersion: TLSProtocolVersion = .tls12
    /// `NSExceptionRequiresForwardSecrecy`: ECDHE suites only (and the key-size check); default
    /// `true`.
    public var requiresForwardSecrecy = true
    /// `NSRequiresCertificateTransparency`.
    public var requiresCertificateTransparency = false

    /// Creates an entry with ATS's defaults.
    public init(key: DomainKey) { self.key = key }
}

/// One entry of `NSPinnedDomains`: SPKI pins for a domain's CA certificates (any non-leaf
/// certificate of the validated path, the anchor included) and for its leaf. When both are
/// given, both must match; an entry whose pins are all malformed pins nothing and so fails.
///
/// A host's rule holds its own entry combined with the entry of its nearest ancestor that
/// includes subdomains, as Apple combines them: the pins of each kind are put together, so a
/// parent's CA pins still apply to a child that has leaf pins of its own (``combinedKeys``).
public struct PinnedDomain: Sendable, Hashable {
    /// The domain.
    public var key: DomainKey
    /// `NSIncludesSubdomains`.
    public var includesSubdomains = false
    /// `NSPinnedCAIdentities`, if given.
    public var caIdentities: [SPKIPin]?
    /// `NSPinnedLeafIdentities`, if given.
    public var leafIdentities: [SPKIPin]?
    /// The entries whose pins this one holds besides its own (an ancestor's that includes
    /// subdomains); empty for an entry as written.
    public var combinedKeys: [DomainKey] = []

    /// `api.example.com`, or `api.example.com + example.com` for a combined entry.
    public var keysDescription: String { ([key] + combinedKeys).map(\.description).joined(separator: " + ") }

    /// This entry with `other`'s pins added, kind by kind (a kind that neither gives stays
    /// absent).
    func combined(with other: PinnedDomain) -> PinnedDomain {
        func union(_ first: [SPKIPin]?, _ second: [SPKIPin]?) -> [SPKIPin]? {
            guard first != nil || second != nil else { return nil }
            return (first ?? []) + (second ?? []).filter { !(first ?? []).contains($0) }
        }
        var result = self
        result.caIdentities = union(caIdentities, other.caIdentities)
        result.leafIdentities = union(leafIdentities, other.leafIdentities)
        result.combinedKeys.append(other.key)
        return result
    }

    /// Creates an entry.
    public init(key: DomainKey, includesSubdomains: Bool = false, caIdentities: [SPKIPin]? = nil, leafIdentities: [SPKIPin]? = nil) {
        self.key = key
        self.includesSubdomains = includesSubdomains
        self.caIdentities = caIdentities
        self.leafIdentities = leafIdentities
    }
}
