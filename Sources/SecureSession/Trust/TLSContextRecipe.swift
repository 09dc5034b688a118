import NIOSSL
import TransportSecurity
import TransportSecurityNIO

/// The one recipe of the session's TLS contexts (shared ones, an HTTPS proxy's, and a connection's
/// own when a challenge handler answers certificate requests): TransportSecurity's client
/// configuration, which leaves the server to the connection's verifier, presenting what is given
/// when a server asks for a certificate, offering the given application protocols through ALPN,
/// with a transport rule's TLS settings and the session's TLS versions.
struct TLSContextRecipe {
    /// What a connection presents when its server asks for a certificate.
    enum Presenting {
        /// This identity, or nothing.
        case identity(ClientIdentity?)
        /// What the provider answers when the server asks (a challenge handler's answer).
        case provider(ClientIdentityProvider)
    }

    let presenting: Presenting
    /// The protocols offered through ALPN.
    let applicationProtocols: [String]
    /// The host's transport rule, whose minimum version and forward secrecy apply.
    let rule: TransportRule?
    /// The session's TLS versions.
    let versions: TLSVersionBounds

    /// The context made by the recipe; a failure is ``SecureSessionError/tlsFailure(_:)`` naming
    /// `what` ("the TLS context", "the TLS context for proxies").
    func make(_ what: String = "the TLS context") throws -> NIOSSLContext {
        var configuration: TLSConfiguration
        switch presenting {
        case .identity(let identity): configuration = .transportSecurityClient(identity: identity)
        case .provider(let provider): configuration = .transportSecurityClient(identityProvider: provider)
        }
        configuration.applicationProtocols = applicationProtocols
        if let rule { configuration.apply(rule) }
        try versions.apply(to: &configuration, ruleMinimum: rule?.minimumTLSVersion)
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw SecureSessionError.tlsFailure("cannot create \(what): \(error)")
        }
    }
}
