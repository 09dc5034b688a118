import NIOSSL
import TransportSecurity
import TransportSecurityNIO

/// Puts a server's request for a client certificate to a challenge handler (SPEC §3), once per
/// handshake in which the server asks: `useCredential(.clientIdentity)` presents that identity,
/// `performDefaultHandling` the session's own (if any), `useCredential` without an identity and
/// `rejectProtectionSpace` continue without a certificate (the server decides), and
/// `cancelAuthenticationChallenge` aborts the handshake, which the session reports as
/// ``SecureSessionError/challengeCancelled(_:)``.
final class ClientCertificateChallenge: Sendable {
    /// The error that aborts a handshake whose challenge was cancelled.
    struct Cancelled: Error {}

    let space: ProtectionSpace
    private let handler: HandlerIdentity
    private let sessionIdentity: ClientIdentity?
    private let cancelled = LockedFlag()

    init(handler: HandlerIdentity, host: String, port: Int, sessionIdentity: ClientIdentity?) {
        self.handler = handler
        self.space = ProtectionSpace(host: host, port: port, isSecure: true, realm: nil, method: .clientCertificate)
        self.sessionIdentity = sessionIdentity
    }

    /// Whether the handler cancelled the challenge.
    var wasCancelled: Bool { cancelled.isSet }

    /// A TLS context for one connection whose certificate requests go to the handler, with the
    /// TLS settings of the host's transport rule, if any.
    func makeTLSContext(rule: TransportRule?, httpVersions: HTTPVersionPolicy) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.transportSecurityClient(identityProvider: { _ in try await self.identity() })
        configuration.applicationProtocols = httpVersions.applicationProtocols
        if let rule { configuration.apply(rule) }
        return try NIOSSLContext(configuration: configuration)
    }

    private func identity() async throws -> ClientIdentity? {
        switch await handler.handler(AuthenticationChallenge(protectionSpace: space, previousFailureCount: 0)) {
        case .useCredential(.clientIdentity(let identity)): return identity
        case .useCredential: return nil
        case .performDefaultHandling: return sessionIdentity
        case .rejectProtectionSpace: return nil
        case .cancelAuthenticationChallenge:
            cancelled.set()
            throw Cancelled()
        }
    }
}
