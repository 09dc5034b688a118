import NIOSSL
import TransportSecurity

extension TLSConfiguration {
    /// A client configuration whose peer verification belongs to a ``PeerTrustVerifier``.
    ///
    /// `certificateVerification` is `.noHostnameVerification`: the custom callback replaces
    /// swift-nio-ssl's chain validation and swift-nio-ssl adds no hostname check of its own (with
    /// `.fullVerification` it would, after the callback, defeating `validatesDomainName = false`;
    /// with `.none` it would ignore the callback's rejection).
    ///
    /// One renegotiation per connection is allowed (TLS 1.2; BoringSSL requires secure
    /// renegotiation and refuses a server certificate that changes in it): servers such as Apache
    /// ask for a client certificate that way when a request reaches a location that requires one.
    /// - Parameters:
    ///   - identity: The client certificate and key to offer, if any.
    ///   - minimumTLSVersion: The lowest TLS version accepted.
    public static func transportSecurityClient(
        identity: ClientIdentity? = nil,
        minimumTLSVersion: TLSVersion = .tlsv12
    ) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .noHostnameVerification
        // The callback decides against TransportSecurity's stores: BoringSSL needs none of its own
        // (and would read the system bundle for every context otherwise).
        configuration.trustRoots = .certificates([])
        configuration.minimumTLSVersion = minimumTLSVersion
        // A client closing a connection (idle, timed out, cancelled) need not wait long for the
        // server's close_notify; swift-nio-ssl's default would hold every abort for 5 seconds.
        configuration.shutdownTimeout = .milliseconds(250)
        // Apache's `SSLVerifyClient` inside a `<Location>` asks for the client certificate by
        // renegotiating once the request is seen (swift-nio-ssl's default refuses: NO_RENEGOTIATION).
        configuration.renegotiationSupport = .once
        if let identity {
            configuration.certificateChain = identity.certificateChain.map { .certificate($0) }
            configuration.privateKey = .privateKey(identity.privateKey)
        }
        return configuration
    }

    /// A server configuration presenting `identity`, asking clients for certificates as
    /// `clientCertificates` says; a ``PeerTrustVerifier`` (usually with a
    /// ``ClientCertificateEvaluator``) decides on the certificates clients present.
    /// - Parameters:
    ///   - identity: The server's certificate chain and key.
    ///   - clientCertificates: Whether clients are asked for a certificate and must present one.
    ///   - minimumTLSVersion: The lowest TLS version accepted.
    public static func transportSecurityServer(
        identity: ClientIdentity,
        clientCertificates: ClientCertificateRequirement = .none,
        minimumTLSVersion: TLSVersion = .tlsv12
    ) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: identity.certificateChain.map { .certificate($0) },
            privateKey: .privateKey(identity.privateKey)
        )
        configuration.minimumTLSVersion = minimumTLSVersion
        configuration.certificateVerification = clientCertificates.certificateVerification
        return configuration
    }
}
