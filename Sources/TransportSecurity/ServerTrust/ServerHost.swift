import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The name a client connected to: a DNS name or an IP literal.
///
/// DNS names are compared case-insensitively (in ASCII, as DNS compares them) with a trailing
/// dot removed; IP literals are kept in their canonical text form (`::1`, not
/// `0:0:0:0:0:0:0:1`), with IPv6 brackets removed.
///
/// Two hosts are equal when their texts have the same bytes (UTF-8), not when Swift's `String`
/// comparison calls them equal: that comparison treats canonically equivalent text as one
/// (`å` written as U+00E5 or as `a` + U+030A, or the OHM SIGN and `Ω`), which no DNS resolver
/// or certificate does.
public enum ServerHost: Sendable, Hashable, CustomStringConvertible, Codable {
    /// A DNS name, its ASCII letters lowercased, without a trailing dot.
    case dnsName(String)
    /// An IPv4 or IPv6 address in canonical text form.
    case ipAddress(String)

    /// Classifies `text` as an IP literal (`192.0.2.1`, `::1`, `[::1]`) or a DNS name.
    public init(_ text: String) {
        // A name is lowercased and loses one trailing dot; an address written with a trailing dot
        // (`192.0.2.1.`) is still that address, as browsers read it, never a DNS name that a
        // dNSName entry could match. Brackets enclose an IPv6 literal (`[::1]`); around anything
        // else they stay, and the name matches nothing.
        let name = Self.normalizedDNSName(text.trimmingSpacesAndTabs)
        let unbracketed = name.hasPrefix("[") && name.hasSuffix("]") ? String(name.dropFirst().dropLast()) : name
        if Self.mayBeIPAddress(unbracketed), let canonical = Self.canonicalIPAddress(unbracketed) {
            self = .ipAddress(canonical)
        } else if let canonical = Self.resolverIPv4Address(name) {
            // `134744072`, `127.1`, `0x7f.0.0.1`, `010.0.0.1`: the address `getaddrinfo` connects
            // to (as browsers and curl rewrite such a URL's host), never a name without a dot,
            // which transport rules would take for a local one.
            self = .ipAddress(canonical)
        } else {
            self = .dnsName(name)
        }
    }

    /// The canonical text of an IPv4 address written in a form that the C library's resolver
    /// (`inet_aton`, which `getaddrinfo` tries before DNS) reads as one: one to four parts, each
    /// decimal, octal (a leading `0`) or hexadecimal (`0x`), the last filling the remaining bytes.
    /// `nil` for anything else, and for text that is not ASCII digits, hexadecimal letters, `x`
    /// and dots.
    static func resolverIPv4Address(_ text: String) -> String? {
        let mayBeIPv4 = !text.isEmpty && text.utf8.allSatisfy { byte in
            isHexadecimalDigit(byte) || byte == UInt8(ascii: "x") || byte == UInt8(ascii: "X") || byte == UInt8(ascii: ".")
        }
        var address = in_addr()
        guard mayBeIPv4, inet_aton(text, &address) != 0 else { return nil }
        return addressText(withUnsafeBytes(of: &address, Array.init))
    }

    /// A DNS name with its ASCII letters lowercased (DNS ignores case in ASCII only, RFC 4343),
    /// without its trailing dot. Names already in that form (as certificates and URLs almost
    /// always give them) are returned as they are, without copying.
    static func normalizedDNSName(_ name: String) -> String {
        var normalized = name.asciiLowercased
        if normalized.utf8.last == UInt8(ascii: ".") { normalized.removeLast() }
        return normalized
    }

    /// Whether `text` uses only the characters of an IPv4 or IPv6 literal (digits, hexadecimal
    /// letters, `.` and `:`), so that names with other letters skip the address parser.
    private static func mayBeIPAddress(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in isHexadecimalDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":") }
    }

    /// Whether `byte` is an ASCII digit or a hexadecimal letter of either case.
    private static func isHexadecimalDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): return true
        default: return false
        }
    }

    /// The host as text: the DNS name or the IP literal.
    public var name: String {
        switch self {
        case .dnsName(let name), .ipAddress(let name): return name
        }
    }

    /// Whether this is an IP literal.
    public var isIPAddress: Bool {
        if case .ipAddress = self { return true }
        return false
    }

    /// The host as text.
    public var description: String { name }

    /// Whether both are the same kind of host with the same bytes.
    public static func == (lhs: ServerHost, rhs: ServerHost) -> Bool {
        lhs.isIPAddress == rhs.isIPAddress && lhs.name.utf8.elementsEqual(rhs.name.utf8)
    }

    /// Hashes the kind and the bytes of the text.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(isIPAddress)
        hasher.combine(byteString: name)
    }

    /// Decodes a host from its text, as ``init(_:)`` reads it.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the host as its text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }

    /// The address's 4 or 16 bytes, as a certificate's IP subjectAltName holds them; `nil` for a
    /// DNS name.
    public var addressBytes: [UInt8]? {
        guard case .ipAddress(let text) = self else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4, Array.init) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6, Array.init) }
        return nil
    }

    /// The canonical text of an IPv4 or IPv6 literal, or `nil` when `text` is not one. An
    /// IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is its IPv4 address (`192.0.2.1`), the
    /// address a connection to it reaches: every rule, exception and pin for the one holds for
    /// the other.
    static func canonicalIPAddress(_ text: String) -> String? {
        // `inet_pton` reads a C string: text after a NUL would go unseen (`10.0.0.1\0junk`).
        guard !text.utf8.contains(0) else { return nil }
        var v4 = in_addr()
        // glibc's and musl's `inet_pton` take four decimal parts of at most 255, without leading
        // zeros: the canonical text already.
        if inet_pton(AF_INET, text, &v4) == 1 { return text }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        if let v4 = unmappedIPv4(withUnsafeBytes(of: &v6, Array.init)) { return addressText(v4) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The IPv4 address an IPv4-mapped IPv6 address (`::ffff:0:0/96`, RFC 4291 §2.5.5.2) stands
    /// for; `nil` for any other bytes.
    static func unmappedIPv4(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count == 16, bytes[..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else { return nil }
        return Array(bytes[12...])
    }

    /// The canonical text of an address as certificates hold it (4 or 16 bytes); any other
    /// length, which no address has, as hex bytes.
    static func addressText(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return bytes.map { String(format: "%02x", $0) }.joined(separator: ":")
        }
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return bytes.map { String(format: "%02x", $0) }.joined(separator: ":") }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
