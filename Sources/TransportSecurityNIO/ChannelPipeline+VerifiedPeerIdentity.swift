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
    /// validated path, and it offers no way to turn server-side resumption off. Such a client is
    /// neither anonymous nor verified on this connection; this method says so instead of
    /// answering `nil`.
    ///
    /// ```swift
    /// let client = try context.pipeline.syncOperations.verifiedPeerIdentity()   // nil: no certificate
    /// ```
    /// - Returns: The verified identity; `nil` when the peer presented no certificate.
    /// - Throws: ``PeerIdentityUnavailable`` when the peer has a certificate but no validated
    ///   path is known for this connection (a resumed TLS session, or an evaluator that trusted
    ///   without validating); ``TransportSecurity/CertificateLoadingError`` when the certificate
    ///   cannot be read; swift-nio-ssl's error when the channel has no TLS handler.
    public func verifiedPeerIdentity() throws -> PeerIdentity? {
        if let chain = try nioSSL_peerValidatedCertificateChain() { return try chain.peerIdentity() }
        guard try nioSSL_peerCertificate() == nil else { throw PeerIdentityUnavailable() }
        return nil
    }
}

/// The TLS peer presented a certificate, but no path validated on this connection vouches for
/// it: the connection resumed an earlier TLS session (which runs no certificate verification),
/// or the evaluator trusted the peer without validating a path. Treat the peer as neither
/// anonymous nor verified: refuse what needs its identity.
public struct PeerIdentityUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    /// Creates the error.
    public init() {}

    /// What happened and what to do.
    public var description: String {
        "the peer presented a certificate, but no validated path vouches for it on this connection (a resumed TLS session runs no verification, or the evaluator trusted the peer without validating): its identity is unknown, so refuse what needs it"
    }
}
