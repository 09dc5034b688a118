import TransportSecurity

extension ServerHost {
    /// Whether the host is this machine: `localhost` and its subdomains, `127.0.0.0/8`, `::1`
    /// (traffic to it never leaves the machine).
    var isLoopback: Bool {
        name == "localhost" || name.hasSuffix(".localhost") || name == "::1" || (isIPAddress && name.hasPrefix("127."))
    }
}
