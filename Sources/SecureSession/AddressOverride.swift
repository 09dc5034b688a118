import TransportSecurity

/// Where to connect for a host and port instead of asking DNS, as curl's `--resolve`: the
/// request's host name is still the one sent (SNI, `Host`) and verified.
public struct AddressOverride: Sendable, Hashable, CustomStringConvertible {
    /// The host name of the URL, normalized as ``TransportSecurity/ServerHost`` normalizes it
    /// (ASCII letters lowercased, one trailing dot and IPv6 brackets removed).
    public let host: String
    /// The port of the URL.
    public let port: Int
    /// The IP address (or name) to connect to.
    public let address: String

    /// Creates an override.
    public init(host: String, port: Int, address: String) {
        self.host = ServerHost(host).name
        self.port = port
        self.address = address
    }

    /// Parses curl's `HOST:PORT:ADDRESS` (an IPv6 address may be bracketed); `nil` when the text
    /// has another shape or the port is not a number from 1 to 65535.
    public init?(curlSyntax text: String) {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, let port = Int(parts[1]), (1...65_535).contains(port) else { return nil }
        var address = String(parts[2])
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        guard !address.isEmpty else { return nil }
        self.init(host: String(parts[0]), port: port, address: address)
    }

    /// `HOST:PORT:ADDRESS`.
    public var description: String { "\(host):\(port):\(address)" }
}

extension Array where Element == AddressOverride {
    /// The address to connect to for `host` and `port`, if overridden.
    func address(host: String, port: Int) -> String? {
        let wanted = ServerHost(host).name
        return first { $0.host.utf8.elementsEqual(wanted.utf8) && $0.port == port }?.address
    }
}
