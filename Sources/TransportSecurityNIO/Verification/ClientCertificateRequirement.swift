import NIOSSL

/// Whether a TLS server asks its clients for a certificate, and what it does when one is missing.
///
/// Whatever the requirement, a certificate that a client does present is decided by the
/// server's ``PeerTrustVerifier`` alone, and its rejection ends the handshake.
public enum ClientCertificateRequirement: Sendable, Hashable {
    /// The server asks for no certificate; clients are anonymous.
    case none
    /// The server asks for a certificate; a client without one gets through anonymously, a
    /// client with one gets through only if the verifier trusts it (a server with both public and
    /// partner clients, which tells them apart by `NIOSSLHandler.peerCertificate`).
    case optional
    /// The server asks for a certificate and refuses clients without one or with one the
    /// verifier does not trust.
    case required

    /// swift-nio-ssl's mode for this requirement.
    ///
    /// Never `.none` once a certificate is asked for: under it BoringSSL ignores the custom
    /// callback's `.failed` answer. `.optionalVerification` asks with `SSL_VERIFY_PEER` alone, so
    /// a presented certificate is still decided by the callback and its rejection is honoured.
    var certificateVerification: CertificateVerification {
        switch self {
        case .none: .none
        case .optional: .optionalVerification
        case .required: .noHostnameVerification
        }
    }
}
