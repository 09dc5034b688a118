import NIOCore
import NIOSSL
import TransportSecurity

extension ChannelPipeline.SynchronousOperations {
    /// Who the TLS peer of this channel is, as the handshake verified it: the
    /// ``TransportSecurity/PeerIdentity`` of the path a ``PeerTrustVerifier`` validated
    /// (``PeerTrustVerifier/makeVerificationCallbackWithMetadata(onDecision:)``).
    ///
    /// Use it rather than reading `nioSSL_peerValidatedCertificateChain()` and taking `nil` for
    /// an anonymous client: a client that *resumes* a TLS session has its certificate back in
    /// the session, but swift-nio-ssl runs no verification callback for it and so holds no
    /// validated path, and it offers no way to turn server-side resumption off. Given the
    /// server's `verifier`, such a client is known by the path that verifier trusted in the full
    /// handshake that made the session, for as long as that decision may be reused
    /// (``PeerTrustVerifier/rememberedPath(forPeerCertificate:at:)``); otherwise, and past
    /// that, it is neither anonymous nor verified, and this method says so instead of answering
    /// `nil`.
    ///
    /// ```swift
    /// let client = try context.pipeline.syncOperations.verifiedPeerIdentity(verifiedBy: verifier)   // nil: no certificate
    /// ```
    /// - Parameter verifier: The verifier of the server's handshakes, which remembers the peers
    ///   it trusted.
    /// - Returns: The verified identity; `nil` when the peer presented no certificate.
    /// - Throws: ``PeerIdentityUnavailable`` when the peer has a certificate but no validated
    ///   path vouches for it on this connection (a resumed TLS session the verifier does not
    ///   remember, or an evaluator that trusted without validating);
    ///   ``TransportSecurity/CertificateLoadingError`` when the certificate cannot be read;
    ///   swift-nio-ssl's error when the channel has no TLS handler.
    public func verifiedPeerIdentity(verifiedBy verifier: PeerTrustVerifier? = nil) throws -> PeerIdentity? {
        if let chain = try nioSSL_peerValidatedCertificateChain() { return try chain.peerIdentity() }
        guard let certificate = try nioSSL_peerCertificate() else { return nil }
        guard let path = verifier?.rememberedPath(forPeerCertificate: try certificate.toDERBytes()), let peer = path.first else {
            throw PeerIdentityUnavailable()
        }
        return try PeerIdentity(certificate: peer)
    }
}

/// The TLS peer presented a certificate, but no path validated on this connection vouches for
/// it: the connection resumed an earlier TLS session (which runs no certificate verification)
/// that the server's verifier does not remember, or the evaluator trusted the peer without
/// validating a path. Treat the peer as neither anonymous nor verified: refuse what needs its
/// identity.
public struct PeerIdentityUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// What happened and what to do.
    public var description: String {
        "the peer presented a certificate, but no validated path vouches for it on this connection (a resumed TLS session runs no verification, and the verifier does not remember trusting the peer; or the evaluator trusted it without validating): its identity is unknown, so refuse what needs it"
    }
}
