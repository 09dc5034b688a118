import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A key of `NSExceptionDomains`, `NSPinnedDomains` or `TSKPinnedDomains`: a DNS name, an IP
/// address or a CIDR range. Names are compared case-insensitively without a trailing dot;
/// names and addresses never match each other.
public enum DomainKey: Sendable, Hashable, CustomStringConvertible {
    /// A DNS name, lowercased, without a trailing dot.
    case dnsName(String)
    /// An IPv4 (4 bytes) or IPv6 (16 bytes) address.
    case address([UInt8])
    /// An address range: network bytes and prefix length.
    case range([UInt8], prefix: Int)

    /// Whether this key is the DNS name `name` (lowercased, without a trailing dot), byte for
    /// byte: `String`'s `==` would also take canonically equivalent text for the name.
    func isDNSName(_ name: String) -> Bool {
        guard case .dnsName(let key) = self else { return false }
        return key.utf8.elementsEqual(name.utf8)
    }

    /// Parses a key; `nil` when ``parse(_:)`` refuses it.
    public init?(_ text: String) {
        guard let key = try? DomainKey.parse(text) else { return nil }
        self = key
    }

    /// Parses a key: an IP address, a CIDR range (`10.0.0.0/8`, `fd00::/8`) or a host name
    /// (ASCII labels of 1 to 63 letters, digits, `-` or `_`; at most 253 characters; one trailing
    /// dot allowed). Refuses, saying why, what could never match a host: nothing, a wildcard, a
    /// port, a URL, a malformed range, an empty label (`.example.com`), a name that is not in
    /// its ASCII (`xn--`) form.
    public static func parse(_ text: String) throws(DomainKeyError) -> DomainKey {
        func refuse(_ reason: String) -> DomainKeyError { DomainKeyError(key: text, reason: reason) }
        var key = text.trimmingSpacesAndTabs.asciiLowercased
        if key.hasSuffix(".") { key.removeLast() }
        guard !key.isEmpty else { throw refuse("is empty: it names no domain") }
        guard !key.contains("://") else { throw refuse("is a URL: write only its host") }
        guard !key.contains("*") else {
            throw refuse("has a wildcard: write the parent domain and include its subdomains (no wildcards)")
        }
        if let slash = key.firstIndex(of: "/") {
            let address = String(key[..<slash])
            guard let bytes = DomainKey.addressBytes(address), var prefix = Int(key[key.index(after: slash)...]) else {
                throw refuse("is not valid CIDR notation (an address, '/', a prefix length within the address's bits)")
            }
            // An IPv4-mapped range (`::ffff:10.0.0.0/104`) is the IPv4 range it maps
            // (`10.0.0.0/8`), as its addresses are read as IPv4 ones.
            if bytes.count == 4, address.contains(":") {
                guard prefix >= 96 else { throw refuse("is an IPv6 range wider than the IPv4-mapped range ::ffff:0:0/96 it starts in: write its IPv4 part, or an IPv6 range that does not start with an IPv4-mapped address") }
                prefix -= 96
            }
            guard (0...(bytes.count * 8)).contains(prefix) else {
                throw refuse("is not valid CIDR notation (an address, '/', a prefix length within the address's bits)")
            }
            return .range(DomainKey.masked(bytes, prefix: prefix), prefix: prefix)
        }
        if let bytes = DomainKey.addressBytes(key) { return .address(bytes) }
        if let address = ServerHost.resolverIPv4Address(key) {
            // A host written this way is that address (ServerHost), which this key would never match.
            throw refuse("is an IPv4 address in a shorthand form that resolvers read as \(address): write \(address)")
        }
        guard !key.contains(":") else { throw refuse("has a port or is a malformed IPv6 address: write only the host (no ports)") }
        if let problem = hostNameProblem(key) { throw refuse(problem) }
        return .dnsName(key)
    }

    /// What keeps a lowercased name without its trailing dot from being a host name, if anything.
    static func hostNameProblem(_ name: String) -> String? {
        ServerHost.nameProblem(name, emptyLabelAdvice: "write the domain itself and include its subdomains")
    }

    /// The key as written canonically.
    public var description: String {
        switch self {
        case .dnsName(let name): return name
        case .address(let bytes): return ServerHost.addressText(bytes)
        case .range(let bytes, let prefix): return "\(ServerHost.addressText(bytes))/\(prefix)"
        }
    }

    /// The bytes of an IPv4 or IPv6 literal.
    static func addressBytes(_ text: String) -> [UInt8]? {
        guard let canonical = ServerHost.canonicalIPAddress(text) else { return nil }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, canonical, &v4) == 1 { return withUnsafeBytes(of: &v4, Array.init) }
        if inet_pton(AF_INET6, canonical, &v6) == 1 { return withUnsafeBytes(of: &v6, Array.init) }
        return nil
    }

    /// `bytes` with every bit after the first `prefix` cleared.
    static func masked(_ bytes: [UInt8], prefix: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bitsHere = max(0, min(8, prefix - index * 8))
            return bitsHere == 8 ? byte : byte & ~(UInt8(0xFF) >> UInt8(bitsHere))
        }
    }

    /// Whether this range holds `address` (same family, same leading bits).
    func contains(_ address: [UInt8]) -> Bool {
        guard case .range(let network, let prefix) = self, network.count == address.count else { return false }
        return DomainKey.masked(address, prefix: prefix) == network
    }
}
