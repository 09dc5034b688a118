import Foundation

/// The transport-security rule that applies to one host, resolved from a
/// ``TransportSecurityConfiguration`` (<doc:TransportRules>), with where it came from.
public struct TransportRule: Sendable, Hashable, CustomStringConvertible {
    /// Where the rule came from.
    public enum Origin: Sendable, Hashable {
        /// An `NSExceptionDomains` entry for exactly this host or address.
        case exception(DomainKey)
        /// An `NSExceptionDomains` entry for an ancestor domain with `NSIncludesSubdomains`.
        case ancestorException(DomainKey)
        /// An `NSExceptionDomains` range holding the address (the longest prefix).
        case rangeException(DomainKey)
        /// A local name or address (unqualified, `localhost`, `.local`, loopback, private or
        /// link-local ranges) with no exception entry.
        case localNetwork
        /// The global keys.
        case global
    }

    /// The host the rule is for.
    public let host: String
    /// Where the rule came from.
    public let origin: Origin
    /// Whether cleartext `http://` is allowed, and if not, the key that would allow it.
    public let allowsCleartext: Bool
    /// The key (with its path) that would allow cleartext, when it is refused.
    public let cleartextRemedy: String
    /// Whether ATS's extended checks apply to HTTPS (minimum TLS version, forward secrecy, key
    /// sizes, signature hashes); `false` under arbitrary loads or on the local network.
    public let enforcesATS: Bool
    /// Whether the chain must validate to a trusted anchor of the system store, with the host,
    /// whatever the evaluator decided: ATS is enforced for the host and no
    /// `NSExceptionAllowsInsecureHTTPLoads` lets the app loosen trust for it. An evaluator that
    /// does not validate (`allowInvalidCertificates`, a disabled evaluator, a challenge
    /// handler's `useCredential`) cannot then make the host trusted: rules only tighten.
    public let requiresDefaultTrust: Bool
    /// The oldest TLS version accepted: TLS 1.2, or the lower version an exception's
    /// `NSExceptionMinimumTLSVersion` names. Neither arbitrary loads nor the local network lower
    /// it below the session's own floor.
    public let minimumTLSVersion: TLSProtocolVersion
    /// Whether only forward-secret cipher suites are offered.
    public let requiresForwardSecrecy: Bool
    /// Whether the chain's keys must be RSA ≥ 2048 or EC ≥ 256 bits.
    public let checksKeySizes: Bool
    /// Whether the chain's signatures must use SHA-256 or better.
    public let checksSignatureHashes: Bool
    /// Whether certificate transparency is required.
    public let requiresCertificateTransparency: Bool
    /// The `NSPinnedDomains` entry that covers the host, if any.
    public let pinnedDomain: PinnedDomain?
    /// The TrustKit pin set that covers the host, if any.
    public let pinSet: DomainPinSet?

    init(
        host: String,
        origin: Origin,
        allowsCleartext: Bool,
        cleartextRemedy: String,
        enforcesATS: Bool,
        exception: ExceptionDomain?,
        pinnedDomain: PinnedDomain?,
        pinSet: DomainPinSet?
    ) {
        self.host = host
        self.origin = origin
        self.allowsCleartext = allowsCleartext
        self.cleartextRemedy = cleartextRemedy
        self.enforcesATS = enforcesATS
        let entry = exception ?? ExceptionDomain(key: .dnsName(host))
        requiresDefaultTrust = enforcesATS && !entry.allowsInsecureHTTPLoads
        minimumTLSVersion = entry.minimumTLSVersion
        requiresForwardSecrecy = enforcesATS && entry.requiresForwardSecrecy
        checksKeySizes = enforcesATS && entry.requiresForwardSecrecy
        checksSignatureHashes = enforcesATS
        requiresCertificateTransparency = entry.requiresCertificateTransparency
        self.pinnedDomain = pinnedDomain
        self.pinSet = pinSet
    }

    /// Where the rule came from, in words.
    public var originDescription: String {
        switch origin {
        case .exception(let key): return "exception \(key)"
        case .ancestorException(let key): return "exception \(key), includes subdomains"
        case .rangeException(let key): return "exception \(key)"
        case .localNetwork: return "local network"
        case .global: return "global keys"
        }
    }

    /// `api.example.com (from exception example.com, includes subdomains): TLS ≥ 1.2, forward
    /// secrecy required, …`.
    public var description: String {
        var parts: [String] = []
        parts.append(allowsCleartext ? "cleartext allowed" : "HTTPS only")
        parts.append("TLS ≥ \(minimumTLSVersion.displayName.dropFirst(4))")
        if enforcesATS {
            if requiresDefaultTrust { parts.append("default trust required") }
            parts.append(requiresForwardSecrecy ? "forward secrecy required" : "forward secrecy not required")
            if checksKeySizes { parts.append("keys RSA ≥ 2048 / EC ≥ 256") }
            parts.append("signatures SHA-256 or better")
        } else {
            parts.append("ATS checks off (default trust evaluation only)")
        }
        if requiresCertificateTransparency { parts.append("certificate transparency required") }
        if let pinnedDomain {
            var kinds: [String] = []
            if let ca = pinnedDomain.caIdentities { kinds.append("\(ca.count) CA pin(s)") }
            if let leaf = pinnedDomain.leafIdentities { kinds.append("\(leaf.count) leaf pin(s)") }
            parts.append("pinned (NSPinnedDomains \(pinnedDomain.keysDescription): \(kinds.joined(separator: ", ")))")
        }
        if let pinSet {
            let mode = pinSet.refusal != nil ? "refused at load, blocks" : (pinSet.enforces ? "enforced" : "report-only")
            parts.append("pin set \(pinSet.key) (\(pinSet.pins.count) pins, \(mode))")
        }
        return "\(host) (from \(originDescription)): " + parts.joined(separator: ", ")
    }
}
