#if GRPC
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import SwiftASN1
import TransportSecurity
import TransportSecurityNIO

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension ServerContext {
    /// Who the client of this RPC is: its SPIFFE ID, names, addresses and pin, read from the
    /// path a ``TransportSecurityNIO/PeerTrustVerifier`` validated during the handshake
    /// (``GRPCNIOTransportHTTP2Posix/HTTP2ServerTransport/Posix/TransportSecurity/verifyingClients(with:presenting:onDecision:)``).
    ///
    /// A client that resumed its TLS session (on which swift-nio-ssl runs no verification) is
    /// known, given the server's `verifier`, by the path that verifier trusted in the full
    /// handshake that made the session, while that decision may be reused.
    ///
    /// `nil` when the client presented no certificate, or over another transport. Never the
    /// certificates a client merely presented.
    /// - Parameter verifier: The verifier the server transport was made with
    ///   (``GRPCNIOTransportHTTP2Posix/HTTP2ServerTransport/Posix/TransportSecurity/verifyingClients(with:presenting:onDecision:)``).
    /// - Throws: ``TransportSecurityNIO/PeerIdentityUnavailable`` when the client presented a
    ///   certificate but no validated path vouches for it on this connection: a resumed TLS
    ///   session `verifier` does not remember (swift-nio-ssl cannot be told to refuse
    ///   resumption), or an evaluator that trusted it without validating. The call should
    ///   then be refused, not served as anonymous. ``TransportSecurity/CertificateLoadingError``
    ///   when the client's certificate does not decode.
    public func peerIdentity(verifiedBy verifier: PeerTrustVerifier? = nil) throws -> PeerIdentity? {
        guard let context = transportSpecific as? HTTP2ServerTransport.Posix.Context else { return nil }
        if let chain = context.peerCertificateChain { return try chain.peerIdentity() }
        guard let certificate = context.peerCertificate else { return nil }
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        guard let path = verifier?.rememberedPath(forPeerCertificate: serializer.serializedBytes), let peer = path.first else {
            throw PeerIdentityUnavailable()
        }
        return try PeerIdentity(certificate: peer)
    }
}
#endif
