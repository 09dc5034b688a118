import Foundation
import PKIBuilder
import TransportSecurity
import TransportSecurityNIO

extension TrustLab {
    /// A server chain for `127.0.0.1` and `localhost`, issued by the lab's intermediate (leaf and
    /// intermediate) or by another CA (the leaf alone).
    public func loopbackChain(issuedBy issuer: IssuedCertificate? = nil) throws -> [IssuedCertificate] {
        let issuer = issuer ?? intermediate
        let leaf = try pki.issue(.server("loopback", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]), by: issuer)
        return issuer.certificate.subject == intermediate.certificate.subject ? [leaf, intermediate] : [leaf]
    }
}

extension PeerTrustVerifier {
    /// What a test server requiring client certificates uses: clients must chain to `clientCA`,
    /// evaluated at `time`, without a cache.
    public static func clients(of clientCA: IssuedCertificate, at time: Date) -> PeerTrustVerifier {
        PeerTrustVerifier(
            evaluator: ClientCertificateEvaluator(clientCAs: [clientCA.der]),
            host: "client",
            systemStore: .empty,
            evaluationTime: time,
            cache: nil
        )
    }
}

extension TrustLab {
    /// A server certificate for `host` signed with SHA-1 by an RSA root of its own (ATS refuses
    /// it); the root is returned to be trusted.
    public func sha1SignedServer(_ host: String) throws -> (root: IssuedCertificate, leaf: IssuedCertificate) {
        let root = try pki.issueRoot(.certificateAuthority("SHA-1 Era Root"), algorithm: .rsa2048)
        var profile = CertificateProfile.server(host)
        profile.signatureAlgorithm = .sha1WithRSAEncryption
        return (root, try pki.issue(profile, by: root, algorithm: .rsa2048))
    }
}
