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
public struct PinnedDomain: Sendable, Hashable {
    /// The domain.
    public var key: DomainKey
    /// `NSIncludesSubdomains`.
    public var includesSubdomains = false
    /// `NSPinnedCAIdentities`, if given.
    public var caIdentities: [SPKIPin]?
    /// `NSPinnedLeafIdentities`, if given.
    public var leafIdentities: [SPKIPin]?

    /// Creates an entry.
    public init(key: DomainKey, includesSubdomains: Bool = false, caIdentities: [SPKIPin]? = nil, leafIdentities: [SPKIPin]? = nil) {
        self.key = key
        self.includesSubdomains = includesSubdomains
        self.caIdentities = caIdentities
        self.leafIdentities = leafIdentities
    }
}
