import NIOSSL
import TransportSecurity

extension TLSConfiguration {
    /// The TLS 1.2 suites ATS accepts: ECDHE key exchange with AES-GCM, ChaCha20-Poly1305 or
    /// AES-CBC (TLS 1.3's suites are all forward-secret and always offered).
    public static let forwardSecretCipherSuites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
        .TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
        .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
        .TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
    ]

    /// The suites ATS adds when `NSExceptionRequiresForwardSecrecy` is false: RSA key exchange.
    public static let nonForwardSecretCipherSuites: [NIOTLSCipher] = [
        .TLS_RSA_WITH_AES_256_GCM_SHA384, .TLS_RSA_WITH_AES_128_GCM_SHA256,
        .TLS_RSA_WITH_AES_256_CBC_SHA, .TLS_RSA_WITH_AES_128_CBC_SHA,
    ]

    /// Applies a transport rule's TLS settings: its minimum version (TLS 1.2, or the lower
    /// version an exception's `NSExceptionMinimumTLSVersion` names; TLS 1.3 always allowed) and,
    /// where ATS is enforced, its cipher suites (forward-secret only unless the rule lifts that).
    /// Where ATS is off for the host, swift-nio-ssl's suites. The maximum version is left as it
    /// is.
    public mutating func apply(_ rule: TransportRule) {
        minimumTLSVersion = rule.minimumTLSVersion.nioVersion
        if rule.enforcesATS {
            cipherSuiteValues = Self.forwardSecretCipherSuites + (rule.requiresForwardSecrecy ? [] : Self.nonForwardSecretCipherSuites)
        }
    }
}

extension TLSProtocolVersion {
    /// The swift-nio-ssl version.
    public var nioVersion: TLSVersion {
        switch self {
        case .tls10: return .tlsv1
        case .tls11: return .tlsv11
        case .tls12: return .tlsv12
        case .tls13: return .tlsv13
        }
    }
}

extension TLSProtocolVersion {
    /// The version of swift-nio-ssl's `version`.
    public init(nioVersion version: TLSVersion) {
        switch version {
        case .tlsv1: self = .tls10
        case .tlsv11: self = .tls11
        case .tlsv12: self = .tls12
        case .tlsv13: self = .tls13
        }
    }
}
