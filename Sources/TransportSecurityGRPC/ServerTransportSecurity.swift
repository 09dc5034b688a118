#if GRPC
import GRPCNIOTransportHTTP2Posix
import NIOSSL
import TransportSecurity
import TransportSecurityNIO

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension HTTP2ServerTransport.Posix.TransportSecurity {
    /// Mutual TLS in which every client must present a certificate that `verifier` trusts
    /// (usually a ``TransportSecurity/ClientCertificateEvaluator``: the client CAs, pins, the
    /// names allowed), the server presenting `identity`.
    ///
    /// A client refused by the verifier fails its handshake: no RPC of it reaches a service. A
    /// service reads who the client is from its `ServerContext`
    /// (``GRPCCore/ServerContext/peerIdentity(verifiedBy:)``): the path the verifier validated.
    ///
    /// The TLS settings are grpc-swift's, with `.noHostnameVerification` (under which BoringSSL
    /// requires a client certificate and the callback alone decides on it; `.noVerification`
    /// would ignore its rejection). Their signature algorithms are BoringSSL's defaults, which
    /// leave Ed25519 out: a client with an Ed25519 key cannot prove it holds it here.
    ///
    /// ```swift
    /// let clients = PeerTrustVerifier(
    ///     evaluator: ClientCertificateEvaluator(clientCAs: bundle, allowedNames: [try PeerNamePattern("spiffe://prod.example/ns/payments/*")]),
    ///     host: "clients"
    /// )
    /// let transport = HTTP2ServerTransport.Posix(
    ///     address: .ipv4(host: "0.0.0.0", port: 8443),
    ///     transportSecurity: try .verifyingClients(with: clients, presenting: serverIdentity)
    /// )
    /// ```
    /// - Parameters:
    ///   - verifier: What decides on each client's chain.
    ///   - identity: The server's certificate chain and key (any key: RSA, ECDSA, Ed25519, or
    ///     one held in an HSM).
    ///   - onDecision: Called with every decision, before the handshake goes on.
    /// - Throws: grpc-swift's `RPCError` only if the identity could not be handed to it.
    public static func verifyingClients(
        with verifier: PeerTrustVerifier,
        presenting identity: ClientIdentity,
        onDecision: (@Sendable (TrustDecision) -> Void)? = nil
    ) throws -> Self {
        try verifyingClients(with: verifier, reloader: IdentityReloader(source: .fixed(identity)), onDecision: onDecision)
    }

    /// Mutual TLS as ``verifyingClients(with:presenting:onDecision:)``, presenting the identity
    /// `identityFile` holds at each handshake: a server certificate renewed on disk is presented
    /// from the next handshake on, without a restart.
    /// - Parameters:
    ///   - verifier: What decides on each client's chain.
    ///   - identityFile: The files of the server's certificate chain and key.
    ///   - onDecision: Called with every decision, before the handshake goes on.
    /// - Throws: grpc-swift's `RPCError` only if the identity could not be handed to it.
    public static func verifyingClients(
        with verifier: PeerTrustVerifier,
        presenting identityFile: ClientIdentityFile,
        onDecision: (@Sendable (TrustDecision) -> Void)? = nil
    ) throws -> Self {
        try verifyingClients(with: verifier, reloader: IdentityReloader(source: .file(identityFile)), onDecision: onDecision)
    }

    private static func verifyingClients(
        with verifier: PeerTrustVerifier,
        reloader: IdentityReloader,
        onDecision: (@Sendable (TrustDecision) -> Void)?
    ) throws -> Self {
        // `.noHostnameVerification` makes BoringSSL require a client certificate and run the
        // callback alone on it (`.noVerification` would ignore the callback's rejection).
        try .mTLS(certificateReloader: reloader) { tls in
            tls.clientCertificateVerification = .noHostnameVerification
            tls.trustRoots = .certificates([])
            tls.customVerificationCallback = verifier.makeVerificationCallbackWithMetadata(onDecision: onDecision)
        }
    }
}
#endif
