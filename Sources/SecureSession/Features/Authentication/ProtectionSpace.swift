import TransportSecurity

/// What a challenge protects: host, port, scheme, realm and authentication method.
public struct ProtectionSpace: Sendable, Hashable, CustomStringConvertible {
    /// The authentication methods a challenge can ask for.
    public enum Method: String, Sendable, Hashable {
        /// The server's certificate chain.
        case serverTrust
        /// A client certificate for mutual TLS.
        case clientCertificate
        /// HTTP Basic (RFC 7617).
        case httpBasic
        /// HTTP Digest (RFC 7616).
        case httpDigest
    }

    /// The host, normalized as `ServerHost` normalizes it: ASCII letters
    /// lowercased (not Unicode's lowercasing, which reads the KELVIN SIGN as `k`), one trailing
    /// dot and IPv6 brackets removed.
    public let host: String
    /// The port.
    public let port: Int
    /// Whether the connection is TLS.
    public let isSecure: Bool
    /// The realm the server named, for HTTP authentication.
    public let realm: String?
    /// The method.
    public let method: Method

    /// Creates a protection space.
    public init(host: String, port: Int, isSecure: Bool, realm: String?, method: Method) {
        self.host = ServerHost(host).name
        self.port = port
        self.isSecure = isSecure
        self.realm = realm
        self.method = method
    }

    /// `https://host:port (realm "r", httpBasic)`.
    public var description: String {
        "\(isSecure ? "https" : "http")://\(host.inAuthorityForm):\(port)" + (realm.map { " (realm \"\($0)\", \(method))" } ?? " (\(method))")
    }
}
