import SwiftASN1
import X509

/// Every certificate of the path but the anchor is signed with SHA-256 or better: a signature
/// made with SHA-1 or MD5 is refused, as Apple, Chrome, Firefox and Go refuse it, because a hash
/// collision lets someone forge it (SHAttered, 2017; a chosen-prefix SHA-1 collision, 2020). The
/// anchor's own self-signature is not relied on, so it is not checked.
///
/// ``insecurelyAllowingSHA1`` accepts `sha1WithRSAEncryption` (for a private PKI until it is
/// re-issued); MD5 and MD2 are never accepted (swift-certificates verifies neither).
public struct SignatureHashPolicy: FailureReportingPolicy {
    /// Whether `sha1WithRSAEncryption` is accepted.
    public let allowsSHA1: Bool

    /// No critical extensions are processed here.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [] }

    /// SHA-256 or better on every certificate but the anchor.
    public static let standard = SignatureHashPolicy(allowsSHA1: false)
    /// As ``standard``, but SHA-1 accepted too. Insecure: see
    /// ``TrustEvaluationOptions/insecurelyAllowsSHA1Signatures``.
    public static let insecurelyAllowingSHA1 = SignatureHashPolicy(allowsSHA1: true)

    private init(allowsSHA1: Bool) { self.allowsSHA1 = allowsSHA1 }

    /// The algorithms accepted: SHA-2 with RSA PKCS#1 v1.5 or ECDSA, and Ed25519.
    static let strongAlgorithms: Set<Certificate.SignatureAlgorithm> = [
        .sha256WithRSAEncryption, .sha384WithRSAEncryption, .sha512WithRSAEncryption,
        .ecdsaWithSHA256, .ecdsaWithSHA384, .ecdsaWithSHA512, .ed25519,
    ]

    /// One ``TrustFailure/Code/weakSignature`` per certificate below the anchor that is signed
    /// with SHA-1 (unless allowed) or another algorithm than SHA-2 or Ed25519.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        path.dropLast().compactMap { certificate in
            let algorithm = certificate.certificate.signatureAlgorithm
            if Self.strongAlgorithms.contains(algorithm) { return nil }
            if algorithm == .sha1WithRSAEncryption {
                if allowsSHA1 { return nil }
                return TrustFailure(
                    .weakSignature,
                    certificate: certificate.subjectText,
                    detail: "is signed with SHA-1 (sha1WithRSAEncryption), which is refused: SHA-1 collisions let a signature be forged (TrustEvaluationOptions.insecurelyAllowsSHA1Signatures would accept it)"
                )
            }
            return TrustFailure(
                .weakSignature,
                certificate: certificate.subjectText,
                detail: "is signed with \(Self.name(of: algorithm)), which is refused: only SHA-256 or better, and Ed25519, are accepted"
            )
        }
    }

    /// `sha1WithRSAEncryption`, without swift-certificates' `SignatureAlgorithm.` prefix.
    static func name(of algorithm: Certificate.SignatureAlgorithm) -> String {
        String(describing: algorithm).replacingOccurrences(of: "SignatureAlgorithm.", with: "")
    }
}
