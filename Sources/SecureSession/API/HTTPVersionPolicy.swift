/// The HTTP versions a ``SecureSession`` offers a server.
public enum HTTPVersionPolicy: Sendable, Hashable {
    /// HTTP/2 when the server agrees during the TLS handshake (ALPN offers `h2` and `http/1.1`),
    /// HTTP/1.1 otherwise. Cleartext connections are HTTP/1.1.
    case automatic
    /// HTTP/1.1 only (ALPN offers `http/1.1` alone).
    case http1Only

    /// The ALPN protocol identifiers offered, most preferred first.
    var applicationProtocols: [String] {
        switch self {
        case .automatic: return ["h2", "http/1.1"]
        case .http1Only: return ["http/1.1"]
        }
    }
}
