import NIOSSL
import TransportSecurity

extension TLSConfiguration {
    /// A client configuration whose peer verification belongs to a ``PeerTrustVerifier``.
    ///
    /// `certificateVerification` is `.noHostnameVerification`: the custom callback replaces
    /// swift-nio-ssl's chain validation and swift-nio-ssl adds no hostname check of its own (with
    /// `.fullVerification` it would, after the callback, defeating `validatesDomainName = false`;
    /// with `.none` it would ignore the callback's rejection).
    /// - Parameters:
    ///   - identity: The client certificate and key to offer, if any.
    ///   - minimumTLSVersion: The lowest TLS version accepted.
    public static func transportSecurityClient(
        identity: ClientIdentity? = nil,
        minimumTLSVersion: TLSVersion = .tlsv12
    ) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .noHostnameVerification
        configuration.minimumTLSVersion = minimumTLSVersion
        if let identity {
            configuration.certificateChain = identity.certificateChain.map { .certificate($0) }
            configuration.privateKey = .privateKey(identity.privateKey)
        }
        return configuration
    }

    /// A server configuration presenting `identity`; with `requiringClientCertificates`, clients
    /// must present a certificate, which a ``PeerTrustVerifier`` (usually with a
    /// ``ClientCertificateEvaluator``) decides on.
    public static func transportSecurityServer(
        identity: ClientIdentity,
        requiringClientCertificates: Bool = false,
        minimumTLSVersion: TLSVersion = .tlsv12
    ) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: identity.certificateChain.map { .certificate($0) },
            privateKey: .privateKey(identity.privateKey)
        )
        configuration.minimumTLSVersion = minimumTLSVersion
        configuration.certificateVerification = requiringClientCertificates ? .noHostnameVerification : .none
        return configuration
    }
}
