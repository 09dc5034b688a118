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
        configuration.verifySignatureAlgorithms = verifiedSignatureAlgorithms
        configuration.curves = offeredGroups
        if let identity {
            configuration.certificateChain = identity.certificateChain.map { .certificate($0) }
            configuration.privateKey = .privateKey(identity.privateKey)
        }
        return configuration
    }

    /// The handshake signatures accepted from a peer (a server's, or a client's certificate
    /// proof): BoringSSL's defaults, then ECDSA with P-521 and Ed25519, which BoringSSL verifies
    /// but does not offer (a server with such a key failed the handshake where curl connected);
    /// the engine validates certificates of both kinds.
    static let verifiedSignatureAlgorithms: [SignatureAlgorithm] = [
        .ecdsaSecp256R1Sha256, .rsaPssRsaeSha256, .rsaPkcs1Sha256,
        .ecdsaSecp384R1Sha384, .rsaPssRsaeSha384, .rsaPkcs1Sha384,
        .rsaPssRsaeSha512, .rsaPkcs1Sha512,
        .rsaPkcs1Sha1,
        .ecdsaSecp521R1Sha512, .ed25519,
    ]

    /// The key-exchange groups a client offers: swift-nio-ssl's defaults (the post-quantum
    /// X25519MLKEM768 first, its key share sent with X25519's), then P-521, only named: over TLS
    /// 1.2 a server may use an ECDSA certificate only on a curve the client names, so a P-521
    /// certificate failed the handshake there (`handshake_failure`) where curl connected.
    static let offeredGroups: [NIOTLSCurve] = [.x25519_MLKEM768, .x25519, .secp256r1, .secp384r1, .secp521r1]

    /// A server configuration presenting `identity`, asking clients for certificates as
    /// `clientCertificates` says; a ``PeerTrustVerifier`` (usually with a
    /// ``ClientCertificateEvaluator``) decides on the certificates clients present.
    ///
    /// BoringSSL is given no trust roots: a server framework that takes the verification callback
    /// apart from the configuration (Vapor's `customCertificateVerifyCallback`) and is not given
    /// it refuses every client certificate, instead of accepting any that chains to the
    /// machine's public CAs.
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
        // The callback decides; without it (a framework not given it) nothing is trusted.
        configuration.trustRoots = .certificates([])
        configuration.additionalTrustRoots = []
        configuration.verifySignatureAlgorithms = verifiedSignatureAlgorithms
        return configuration
    }

    /// A server configuration like ``transportSecurityServer(identity:clientCertificates:minimumTLSVersion:)``
    /// presenting the identity `identityFile` holds at each handshake: a certificate renewed on
    /// disk is presented from the next handshake on, without a new context or a restart.
    ///
    /// The files are looked at (and, when changed, read, on the event loop of the handshake)
    /// once per `identityFile.checkInterval` at most; a renewal that does not load leaves the
    /// previous identity in use (``ClientIdentityFile``).
    /// - Parameters:
    ///   - identityFile: The files of the server's certificate chain and key.
    ///   - clientCertificates: Whether clients are asked for a certificate and must present one.
    ///   - minimumTLSVersion: The lowest TLS version accepted.
    public static func transportSecurityServer(
        identityFile: ClientIdentityFile,
        clientCertificates: ClientCertificateRequirement = .none,
        minimumTLSVersion: TLSVersion = .tlsv12
    ) -> TLSConfiguration {
        let initial = identityFile.identity
        var configuration = transportSecurityServer(identity: initial, clientCertificates: clientCertificates, minimumTLSVersion: minimumTLSVersion)
        // BoringSSL's certificate callback runs on every server handshake, after the client's
        // hello: the identity of the moment replaces the configuration's.
        configuration.sslContextCallback = { _, promise in
            let current = identityFile.identity
            guard current.chainFingerprint != initial.chainFingerprint else { return promise.succeed(.noChanges) }
            promise.succeed(NIOSSLContextConfigurationOverride(presenting: current))
        }
        return configuration
    }
}
