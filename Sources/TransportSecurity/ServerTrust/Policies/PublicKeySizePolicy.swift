import SwiftASN1
import X509

/// Every RSA key of the path, anchor included, has a modulus of at least ``minimumRSABits``
/// bits and a whole number of bytes (CA/Browser Forum BR 6.1.5).
public struct PublicKeySizePolicy: FailureReportingPolicy {
    /// The smallest RSA modulus accepted, in bits.
    public let minimumRSABits: Int

    /// No critical extensions are processed here.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [] }

    /// Creates the policy.
    public init(minimumRSABits: Int = 2048) { self.minimumRSABits = minimumRSABits }

    /// One ``TrustFailure/Code/weakKey`` per RSA key that is too short or not a whole number of
    /// bytes.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        path.compactMap { certificate in
            let (type, bits) = CertificateDetails.key(certificate.certificate.publicKey)
            guard type == "RSA" else { return nil }
            if bits < minimumRSABits {
                return TrustFailure(.weakKey, certificate: certificate.subjectText, detail: "has a \(bits)-bit RSA key; at least \(minimumRSABits) bits are required")
            }
            if bits % 8 != 0 {
                return TrustFailure(.weakKey, certificate: certificate.subjectText, detail: "has a \(bits)-bit RSA key, not a whole number of bytes (CA/Browser Forum BR 6.1.5)")
            }
            return nil
        }
    }
}
