#if GRPC
import NIOCertificateReloading
import NIOSSL
import TransportSecurityNIO

/// The certificate and key a gRPC transport presents, handed to grpc-swift-nio-transport as
/// its `CertificateReloader`: the one way its TLS configuration takes a key of any kind (an
/// Ed25519 key, which BoringSSL does not export, or a key held in an HSM) and a certificate
/// renewed on disk.
///
/// swift-nio-ssl asks for it at every handshake in which a certificate is presented (every
/// server handshake; a client handshake whose server requests one).
struct IdentityReloader: CertificateReloader {
    /// Where the identity comes from.
    enum Source: Sendable {
        /// Always the same identity.
        case fixed(ClientIdentity)
        /// The identity the files hold at the moment (renewed on disk without a restart).
        case file(ClientIdentityFile)
    }

    let source: Source

    /// The identity to present now.
    var identity: ClientIdentity {
        switch source {
        case .fixed(let identity): identity
        case .file(let file): file.identity
        }
    }

    var sslContextConfigurationOverride: NIOSSLContextConfigurationOverride {
        NIOSSLContextConfigurationOverride(presenting: identity)
    }
}
#endif
