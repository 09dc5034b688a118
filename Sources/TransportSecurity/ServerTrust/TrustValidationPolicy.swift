/// What a server-trust evaluation checks besides the path: Apple's `SecPolicyCreateSSL` and
/// `SecPolicyCreateBasicX509`.
public enum TrustValidationPolicy: Sendable, Hashable, CustomStringConvertible {
    /// Path validation, the serverAuth extended key usage when the leaf has an EKU extension, a
    /// leaf that is not a CA, and, when `host` is given, that the leaf's subjectAltName names it
    /// (never the common name).
    case ssl(host: ServerHost?)
    /// A TLS client's certificate, as a server requiring client certificates sees it
    /// (`SecPolicyCreateSSL(false, nil)`): path validation, the clientAuth extended key usage when
    /// the leaf has an EKU extension, and a leaf that is not a CA. No name is checked.
    case sslClient
    /// Path validation only: signatures, validity dates, basic and name constraints.
    case basicX509

    /// `ssl(host:)` from text; `nil` means no hostname check. An empty name is not `nil`: it is
    /// checked, and matches no certificate, so that a host lost on the way (`url.host ?? ""`)
    /// fails closed instead of turning the hostname check off.
    public static func ssl(_ host: String?) -> TrustValidationPolicy {
        guard let host else { return .ssl(host: nil) }
        return .ssl(host: ServerHost(host))
    }

    /// The host checked, if any.
    public var host: ServerHost? {
        if case .ssl(let host) = self { return host }
        return nil
    }

    /// `ssl(host)`, `ssl` or `basicX509`.
    public var description: String {
        switch self {
        case .ssl(let host?): return "ssl(\(host))"
        case .ssl(nil): return "ssl"
        case .sslClient: return "sslClient"
        case .basicX509: return "basicX509"
        }
    }
}
