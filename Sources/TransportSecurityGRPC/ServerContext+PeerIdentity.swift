import GRPCCore
import GRPCNIOTransportHTTP2Posix
import TransportSecurity

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension ServerContext {
    /// Who the client of this RPC is: its SPIFFE ID, names, addresses and pin, read from the
    /// path a ``TransportSecurityNIO/PeerTrustVerifier`` validated during the handshake
    /// (``GRPCNIOTransportHTTP2Posix/HTTP2ServerTransport/Posix/TransportSecurity/verifyingClients(with:presenting:onDecision:)``).
    ///
    /// `nil` when the connection carries no validated path: another transport, a server that
    /// does not verify clients, or an evaluator that trusts without validating. Never the
    /// certificates a client merely presented.
    /// - Throws: ``TransportSecurity/CertificateLoadingError`` when the client's subjectAltName
    ///   does not decode.
    public func peerIdentity() throws -> PeerIdentity? {
        guard let context = transportSpecific as? HTTP2ServerTransport.Posix.Context,
              let chain = context.peerCertificateChain
        else { return nil }
        return try chain.peerIdentity()
    }
}
