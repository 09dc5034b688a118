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

    /// Parses a key; `nil` when it is a malformed CIDR, an address with a port, a wildcard or
    /// empty.
    public init?(_ text: String) {
        var key = text.trimmingCharacters(in: .whitespaces).lowercased()
        if key.hasSuffix(".") { key.removeLast() }
        guard !key.isEmpty, !key.contains("*") else { return nil }
        if let slash = key.firstIndex(of: "/") {
            guard let bytes = DomainKey.addressBytes(String(key[..<slash])),
                let prefix = Int(key[key.index(after: slash)...]), (0...(bytes.count * 8)).contains(prefix)
            else { return nil }
            self = .range(DomainKey.masked(bytes, prefix: prefix), prefix: prefix)
        } else if let bytes = DomainKey.addressBytes(key) {
            self = .address(bytes)
        } else {
            guard !key.contains(":"), !key.contains("/"), !key.contains(" ") else { return nil }
            self = .dnsName(key)
        }
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
