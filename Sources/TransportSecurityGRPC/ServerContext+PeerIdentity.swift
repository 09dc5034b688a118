import GRPCCore
import GRPCNIOTransportHTTP2Posix
import TransportSecurity
import TransportSecurityNIO

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension ServerContext {
    /// Who the client of this RPC is: its SPIFFE ID, names, addresses and pin, read from the
    /// path a ``TransportSecurityNIO/PeerTrustVerifier`` validated during the handshake
    /// (``GRPCNIOTransportHTTP2Posix/HTTP2ServerTransport/Posix/TransportSecurity/verifyingClients(with:presenting:onDecision:)``).
    ///
    /// `nil` when the client presented no certificate, or over another transport. Never the
    /// certificates a client merely presented.
    /// - Throws: ``TransportSecurityNIO/PeerIdentityUnavailable`` when the client presented a
    ///   certificate but the connection carries no validated path: it resumed an earlier TLS
    ///   session (swift-nio-ssl verifies nothing then, and cannot be told to refuse
    ///   resumption), or the evaluator trusted it without validating. The call should then be
    ///   refused, not served as anonymous. ``TransportSecurity/CertificateLoadingError`` when
    ///   the client's subjectAltName does not decode.
    public func peerIdentity() throws -> PeerIdentity? {
        guard let context = transportSpecific as? HTTP2ServerTransport.Posix.Context else { return nil }
        if let chain = context.peerCertificateChain { return try chain.peerIdentity() }
        guard context.peerCertificate == nil else { throw PeerIdentityUnavailable() }
        return nil
    }
}
