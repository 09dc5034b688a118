import SwiftASN1
import X509

extension DERCertificate {
    /// The name of the algorithm the certificate is signed with: swift-certificates' name
    /// (`sha256WithRSAEncryption`), else the name of a known weak or unsupported algorithm
    /// (`md5WithRSAEncryption`, `ecdsa-with-SHA1`, `RSASSA-PSS`), else its OID.
    var signatureAlgorithmName: String {
        let algorithm = certificate.signatureAlgorithm
        if SignatureHashPolicy.strongAlgorithms.contains(algorithm) || algorithm == .sha1WithRSAEncryption {
            return SignatureHashPolicy.name(of: algorithm)
        }
        guard let oid = Self.signatureAlgorithmOID(in: derBytes) else { return SignatureHashPolicy.name(of: algorithm) }
        return Self.name(of: oid)
    }

    /// `md5WithRSAEncryption (1.2.840.113549.1.1.4)`, or `the algorithm 1.2.3.4`.
    private static func name(of oid: ASN1ObjectIdentifier) -> String {
        signatureAlgorithmNames[oid.description].map { "\($0) (\(oid))" } ?? "the algorithm \(oid)"
    }

    /// Why swift-certificates would not read a certificate signed with an algorithm it does not
    /// support (an MD5 signature: it refuses to parse such a certificate at all), in words;
    /// `nil` for any other error.
    static func refusedAlgorithm(of error: any Error, in bytes: [UInt8]) -> String? {
        guard let error = error as? CertificateError, error.code == .unsupportedSignatureAlgorithm,
            let oid = signatureAlgorithmOID(in: bytes)
        else { return nil }
        let weak = ["1.2.840.113549.1.1.2", "1.2.840.113549.1.1.4", "1.3.14.3.2.29", "1.2.840.10045.4.1", "1.2.840.10040.4.3"].contains(oid.description)
        return "it is signed with \(name(of: oid)), which is refused" + (weak ? ": MD5 and SHA-1 signatures can be forged" : ": the algorithm is not supported")
    }

    /// The OID of the outer `signatureAlgorithm` (Certificate ::= SEQUENCE { tbsCertificate,
    /// signatureAlgorithm AlgorithmIdentifier, signatureValue }), read from the DER bytes, since
    /// swift-certificates keeps an unknown algorithm's identifier to itself.
    private static func signatureAlgorithmOID(in derBytes: [UInt8]) -> ASN1ObjectIdentifier? {
        guard let root = try? DER.parse(derBytes), case .constructed(let parts) = root.content else { return nil }
        let fields = Array(parts)
        guard fields.count == 3, case .constructed(let identifier) = fields[1].content, let first = identifier.first(where: { _ in true }) else {
            return nil
        }
        return try? ASN1ObjectIdentifier(derEncoded: first)
    }

    /// Signature algorithms swift-certificates does not verify, by OID.
    private static let signatureAlgorithmNames: [String: String] = [
        "1.2.840.113549.1.1.2": "md2WithRSAEncryption",
        "1.2.840.113549.1.1.4": "md5WithRSAEncryption",
        "1.3.14.3.2.29": "sha1WithRSASignature",
        "1.2.840.10045.4.1": "ecdsa-with-SHA1",
        "1.2.840.10040.4.3": "dsa-with-sha1",
        "1.2.840.10045.4.3.1": "ecdsa-with-SHA224",
        "1.2.840.113549.1.1.14": "sha224WithRSAEncryption",
        "1.2.840.113549.1.1.10": "RSASSA-PSS",
        "1.3.101.113": "Ed448",
    ]
}
