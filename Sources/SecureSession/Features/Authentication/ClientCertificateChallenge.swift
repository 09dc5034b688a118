import NIOSSL
import TransportSecurity
import TransportSecurityNIO

/// Puts a server's request for a client certificate to a challenge handler, once per
/// handshake in which the server asks: `useCredential(.clientIdentity)` presents that identity,
/// `performDefaultHandling` the session's own (if any), `useCredential` without an identity and
/// `rejectProtectionSpace` continue without a certificate (the server decides), and
/// `cancelAuthenticationChallenge` aborts the handshake, which the session reports as
/// ``SecureSessionError/challengeCancelled(_:)``.
///
/// A server that asks by renegotiating TLS after the handshake (Apache, for a location that
/// requires a certificate) cannot wait for the handler there (swift-nio-ssl ends the connection
/// with `wantX509Lookup`): the session takes the handler's answer once it comes
/// (``answerGiven()``), sends the request again on a new connection that presents that answer
/// without asking (``init(handler:host:port:sessionIdentity:renegotiationAnswers:key:)``),
/// and keeps it for the server's later connections, whose renegotiations it answers too
/// (``RenegotiationAnswers``: a burst of requests puts the question once).
final class ClientCertificateChallenge: Sendable {
    /// The error that aborts a handshake whose challenge was cancelled.
    struct Cancelled: Error {}

    /// A handler's answer to a certificate request: the identity to present, or none.
    struct Answer: Sendable {
        let identity: ClientIdentity?
    }

    let space: ProtectionSpace
    private let handler: HandlerIdentity
    private let sessionIdentity: ClientIdentity?
    /// The answer this connection presents without asking, for a server that asks by
    /// renegotiating.
    private let renegotiationAnswer: Answer?
    private let cancelled = LockedFlag()
    private let presented = LockedFlag()
    /// Set once the connection's handshake is over: a later request comes by renegotiation.
    private let handshakeOver = LockedFlag()
    /// Where renegotiation questions for `key` are shared and their answers kept.
    private let renegotiationAnswers: RenegotiationAnswers?
    private let key: ConnectionKey?
    /// The handler's answer, once it has given it.
    private let answered = OnceAnswer<ClientIdentity?>()

    init(
        handler: HandlerIdentity,
        host: String,
        port: Int,
        sessionIdentity: ClientIdentity?,
        renegotiationAnswers: RenegotiationAnswers? = nil,
        key: ConnectionKey? = nil
    ) {
        self.handler = handler
        self.space = ProtectionSpace(host: host, port: port, isSecure: true, realm: nil, method: .clientCertificate)
        self.sessionIdentity = sessionIdentity
        self.renegotiationAnswer = key.flatMap { renegotiationAnswers?.answer(for: $0) }
        self.renegotiationAnswers = renegotiationAnswers
        self.key = key
    }

    /// Notes that the connection's handshake is over.
    func handshakeCompleted() { handshakeOver.set() }

    /// Whether the handler cancelled the challenge.
    var wasCancelled: Bool { cancelled.isSet }

    /// Whether the connection presented a certificate: the handler's, or the renegotiation
    /// answer's, when the server asked.
    var presentedCertificate: Bool { presented.isSet || renegotiationAnswer?.identity != nil }

    /// A TLS context for one connection whose certificate requests go to the handler (or get
    /// the renegotiation answer, when there is one), with the TLS settings of the host's
    /// transport rule, if any, and the session's TLS versions.
    func makeTLSContext(rule: TransportRule?, httpVersions: HTTPVersionPolicy, versions: TLSVersionBounds) throws -> NIOSSLContext {
        let presenting = renegotiationAnswer.map { TLSContextRecipe.Presenting.identity($0.identity) }
            ?? .provider({ _ in try await self.identity() })
        return try TLSContextRecipe(presenting: presenting, applicationProtocols: httpVersions.applicationProtocols, rule: rule, versions: versions).make()
    }

    /// The handler's answer, waiting for it: only for a connection whose server has asked (its
    /// certificate callback ran), else it never comes. Throws
    /// ``SecureSessionError/challengeCancelled(_:)`` when the handler cancelled.
    func answerGiven() async throws -> Answer {
        do {
            return Answer(identity: try await answered.value)
        } catch is Cancelled {
            throw SecureSessionError.challengeCancelled(space)
        }
    }

    private func identity() async throws -> ClientIdentity? {
        do {
            let identity: ClientIdentity?
            if handshakeOver.isSet, let renegotiationAnswers, let key {
                identity = try await renegotiationAnswers.answer(for: key) { try await self.ask() }
            } else {
                identity = try await ask()
            }
            if identity != nil { presented.set() }
            answered.give(.success(identity))
            return identity
        } catch {
            answered.give(.failure(error))
            throw error
        }
    }

    private func ask() async throws -> ClientIdentity? {
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
