import TransportSecurity

/// Where to connect for a host and port instead of asking DNS, as curl's `--resolve`: the
/// request's host name is still the one sent (SNI, `Host`) and verified.
public struct AddressOverride: Sendable, Hashable, CustomStringConvertible {
    /// The host name of the URL, normalized as `ServerHost` normalizes it
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

    /// Parses curl's `HOST:PORT:ADDRESS` (an IPv6 address may be bracketed).
    /// - Throws: ``SyntaxError`` when the text has another shape, the port is not a number from 1
    ///   to 65535, or the host or the address is no host a connection could be made to (a space,
    ///   a NUL: an override for it would never apply, or apply to another host).
    public init(curlSyntax text: String) throws(SyntaxError) {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty else { throw SyntaxError(text: text, reason: "not HOST:PORT:ADDRESS") }
        guard let port = Int(parts[1]), (1...65_535).contains(port) else {
            throw SyntaxError(text: text, reason: "the port '\(parts[1])' is not a number from 1 to 65535")
        }
        var address = String(parts[2])
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        guard !address.isEmpty else { throw SyntaxError(text: text, reason: "no ADDRESS follows HOST:PORT:") }
        if let problem = ServerHost(String(parts[0])).nameProblem { throw SyntaxError(text: text, reason: "its host \(problem)") }
        if let problem = ServerHost(address).nameProblem { throw SyntaxError(text: text, reason: "its address \(problem)") }
        self.init(host: String(parts[0]), port: port, address: address)
    }

    /// Why a text is not curl's `HOST:PORT:ADDRESS`.
    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The text given.
        public let text: String
        /// What is wrong with it.
        public let reason: String

        /// `'TEXT': REASON`.
        public var description: String { "'\(text)': \(reason)" }
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
