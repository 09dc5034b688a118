/// What a monitor watches: the network at large, or one host.
public enum ReachabilityTarget: Sendable, Hashable, CustomStringConvertible {
    /// The internet at large: is there a route out (a default route, IPv4 or IPv6), through an
    /// interface that is up? Asked as the route to two documentation addresses that no network
    /// uses (`198.51.100.1` and `2001:db8::1`): nothing is ever sent to them, the kernel is only
    /// asked which way it would send.
    case system
    /// One host, by name or by IPv4/IPv6 address: is there a route to it? A name is resolved
    /// (`getaddrinfo`) at every evaluation, and is reachable when any of its addresses is; a name
    /// that does not resolve is not reachable.
    case host(String)

    /// The addresses whose routes decide the system status.
    static let systemProbes = ["198.51.100.1", "2001:db8::1"].compactMap(RouteDestination.init(literal:))

    /// `system` or `host NAME`.
    public var description: String {
        switch self {
        case .system: return "system"
        case .host(let host): return "host \(host)"
        }
    }
}
