import Foundation
import NIOCore
import NIOSSL
import TransportSecurity

extension PeerTrustVerifier {
    /// The swift-nio-ssl callback (`NIOSSLCustomVerificationCallbackWithMetadata`, `@Sendable`,
    /// as Vapor's `customCertificateVerifyCallbackWithMetadata` takes it) that also hands
    /// swift-nio-ssl the path it validated, so that the application can read it once the
    /// handshake is over: `NIOSSLHandler`'s
    /// `peerValidatedCertificateChain` (Vapor's `Request.peerCertificateChain`), and from it the
    /// client's `PeerIdentity` (`ValidatedCertificateChain.peerIdentity()`).
    ///
    /// The chain handed on is the decision's validated path, from the peer's certificate to the
    /// anchor; a peer trusted without a validated path (an evaluator that does not validate)
    /// gets through with no chain, never with the certificates it merely presented; a path
    /// swift-nio-ssl cannot read back is refused.
    ///
    /// ```swift
    /// let verifier = PeerTrustVerifier(evaluator: ClientCertificateEvaluator(clientCAs: [ca]), host: "clients")
    /// let handler = NIOSSLServerHandler(
    ///     context: sslContext,
    ///     customVerificationCallbackWithMetadata: verifier.makeVerificationCallbackWithMetadata()
    /// )
    /// // later, in a handler of that channel (its ChannelHandlerContext: context):
    /// let client = try context.pipeline.syncOperations.verifiedPeerIdentity()
    /// ```
    /// - Parameter onDecision: Called with every decision, before the handshake goes on.
    public func makeVerificationCallbackWithMetadata(
        onDecision: (@Sendable (TrustDecision) -> Void)? = nil
    ) -> @Sendable ([NIOSSLCertificate], EventLoopPromise<NIOSSLVerificationResultWithMetadata>) -> Void {
        { certificates, promise in
            self.verify(certificates) { decision, encoded in
                onDecision?(decision)
                guard decision.isTrusted else { return promise.succeed(.failed) }
                guard let path = Self.validatedPath(of: decision) else {
                    return promise.succeed(.certificateVerified(VerificationMetadata(nil)))
                }
                // A validated path swift-nio-ssl cannot hold is refused: the application must not
                // see a trusted peer as one without a chain.
                guard let chain = Self.nioCertificates(path, presented: certificates, encoded: encoded) else {
                    return promise.succeed(.failed)
                }
                // For a later connection resuming this one's TLS session, which runs no verification.
                self.verifiedPeers.remember(path, until: decision.reusableUntil ?? path.map(\.certificate.notValidAfter).min() ?? .distantPast)
                promise.succeed(.certificateVerified(VerificationMetadata(ValidatedCertificateChain(chain))))
            }
        }
    }

    /// The path of the decision's last trusted evaluation, from the peer's certificate to the
    /// anchor; `nil` when the decision holds none.
    static func validatedPath(of decision: TrustDecision) -> [DERCertificate]? {
        guard let path = decision.checks.last(where: { $0.evaluation?.isTrusted == true })?.evaluation?.path, !path.isEmpty else {
            return nil
        }
        return path
    }

    /// `path` as swift-nio-ssl certificates: those the peer presented reused, the others (the
    /// anchor, an intermediate found elsewhere) read from their DER; `nil` when one cannot be read.
    static func nioCertificates(_ path: [DERCertificate], presented: [NIOSSLCertificate], encoded: [[UInt8]]) -> [NIOSSLCertificate]? {
        var chain: [NIOSSLCertificate] = []
        chain.reserveCapacity(path.count)
        for certificate in path {
            if let index = encoded.firstIndex(of: certificate.derBytes), index < presented.count {
                chain.append(presented[index])
            } else if let read = try? NIOSSLCertificate(bytes: certificate.derBytes, format: .der) {
                chain.append(read)
            } else {
                return nil
            }
        }
        return chain
    }
}

extension PeerTrustVerifier {
    /// The path this verifier trusted for the peer certificate `der` (DER), when it did so in a
    /// full handshake whose decision may still be reused at `time` (the current time, or the
    /// verifier's fixed evaluation time): what a connection resuming that handshake's TLS
    /// session, which runs no verification, is known by. `nil` otherwise.
    public func rememberedPath(forPeerCertificate der: [UInt8], at time: Date? = nil) -> [DERCertificate]? {
        verifiedPeers.path(forPeer: der, at: time ?? template.evaluationTime ?? Date())
    }
}

extension ValidatedCertificateChain {
    /// Who the verified peer is: the names of the chain's first certificate.
    /// - Throws: ``TransportSecurity/CertificateLoadingError`` when that certificate cannot be
    ///   read.
    public func peerIdentity() throws -> PeerIdentity {
        try PeerIdentity(certificate: DERCertificate(derBytes: self[startIndex].toDERBytes()))
    }
}
