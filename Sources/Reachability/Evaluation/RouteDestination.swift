#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address whose route the monitor looks up.
struct RouteDestination: Sendable, Hashable, CustomStringConvertible {
    /// `AF_INET` or `AF_INET6`.
    var family: UInt8
    /// The address in network byte order: 4 or 16 bytes.
    var bytes: [UInt8]

    /// An address from its family and network-byte-order bytes.
    init(family: UInt8, bytes: [UInt8]) {
        self.family = family
        self.bytes = bytes
    }

    /// Parses an IPv4 or IPv6 literal (an IPv6 literal may be bracketed and carry a `%zone`,
    /// which is dropped); `nil` for anything else.
    init?(literal: String) {
        var text = literal
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            family = UInt8(AF_INET)
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            family = UInt8(AF_INET6)
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// The address as `inet_ntop` writes it.
    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = bytes.withUnsafeBytes { inet_ntop(Int32(family), $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
