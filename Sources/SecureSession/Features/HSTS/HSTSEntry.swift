import Foundation
import TransportSecurity

/// A known HSTS host (RFC 6797 §8.1): its `http://` URLs are sent as `https://` until the entry
/// expires.
public struct HSTSEntry: Sendable, Hashable, CustomStringConvertible {
    /// The host name, lowercased, without a trailing dot.
    public let host: String
    /// Whether its subdomains are known HSTS hosts too.
    public let includesSubdomains: Bool
    /// When it stops applying; `nil` for never (an entry of a preload list).
    public let expires: Date?

    /// Creates an entry; the host is normalized (lowercased, bracket and trailing dot removed).
    public init(host: String, includesSubdomains: Bool, expires: Date?) {
        self.host = ServerHost(host).name
        self.includesSubdomains = includesSubdomains
        self.expires = expires
    }

    /// Whether ``host`` is a DNS name a store keeps: ASCII labels of letters, digits, `-` and
    /// `_`, none empty, as `DomainKey` reads names (not an address, nor a name with two
    /// trailing dots or one that is not in its `xn--` form).
    public var hasWellFormedHost: Bool { DomainKey(host) == .dnsName(host) }

    /// Whether the entry still applies at `date`.
    public func isValid(at date: Date) -> Bool { expires.map { $0 > date } ?? true }

    /// Whether it makes `host` (normalized) a known HSTS host: the same name, or a subdomain
    /// when it includes subdomains (RFC 6797 §8.2).
    func covers(_ host: String) -> Bool {
        host == self.host || (includesSubdomains && host.hasSuffix("." + self.host))
    }

    /// `host` (`.host` with subdomains) and the expiry.
    public var description: String {
        (includesSubdomains ? "." : "") + host + " until " + (expires.map { "\($0)" } ?? "forever")
    }
}
