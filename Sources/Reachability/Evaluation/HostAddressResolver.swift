#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolves a host name to the addresses whose routes are looked up.
enum HostAddressResolver {
    /// The addresses of an IP literal or a host name (`getaddrinfo`, IPv4 and IPv6, without
    /// duplicates); empty when the name does not resolve, or holds a NUL (the resolver, reading a
    /// C string, would look up the name before it: another host).
    static func addresses(of host: String) -> [RouteDestination] {
        guard !host.utf8.contains(0) else { return [] }
        if let literal = RouteDestination(literal: host) { return [literal] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [RouteDestination] = []
        var entry = list
        while let current = entry {
            if let address = destination(of: current.pointee), !addresses.contains(address) { addresses.append(address) }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    private static func destination(of entry: addrinfo) -> RouteDestination? {
        guard let address = entry.ai_addr else { return nil }
        switch entry.ai_family {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                var value = $0.pointee.sin_addr
                return RouteDestination(family: UInt8(AF_INET), bytes: withUnsafeBytes(of: &value) { Array($0) })
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                var value = $0.pointee.sin6_addr
                return RouteDestination(family: UInt8(AF_INET6), bytes: withUnsafeBytes(of: &value) { Array($0) })
            }
        default:
            return nil
        }
    }
}
