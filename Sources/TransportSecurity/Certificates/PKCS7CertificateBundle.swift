import SwiftASN1

/// The certificates of a PKCS#7 (CMS) "certs-only" bundle: a `SignedData` with no content and no
/// signers (RFC 5652 §5), the form CAs publish their issuing certificates in at
/// authority-information-access `caIssuers` URLs (`.p7c`, RFC 5280 §4.2.2.1) and Windows exports
/// chains in (`.p7b`). Walked with swift-asn1's BER parser, so indefinite lengths are read too;
/// the certificates inside are read as DER.
enum PKCS7CertificateBundle {
    /// `id-signedData` (RFC 5652 §5.1).
    static let signedDataType: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]

    /// ``signedDataType`` as the DER field that opens a `ContentInfo` carrying it (empty only if
    /// swift-asn1 could not write it, and then nothing is taken for a bundle).
    private static let signedDataTypeField: [UInt8] = {
        var serializer = DER.Serializer()
        try? serializer.serialize(signedDataType)
        return serializer.serializedBytes
    }()

    /// Whether `bytes` begin as a PKCS#7 `ContentInfo` carrying `SignedData`: a SEQUENCE whose
    /// first field is `id-signedData`. Read from the first bytes alone, so that a bundle cut
    /// short is still reported as a bundle.
    static func isBundle(_ bytes: [UInt8]) -> Bool {
        guard !signedDataTypeField.isEmpty, bytes.count > 2, bytes[0] == 0x30 else { return false }
        // The SEQUENCE's length: one byte, 0x80 (indefinite), or 0x8n and n bytes.
        let lengthSize = bytes[1] <= 0x80 ? 1 : 1 + Int(bytes[1] & 0x7F)
        return bytes.dropFirst(1 + lengthSize).starts(with: signedDataTypeField)
    }

    /// The certificates of the bundle, in its order.
    /// - Throws: ``CertificateLoadingError`` naming `source`: `.malformedCertificate` when the
    ///   structure is not a certs-only `SignedData` (with the place it breaks) or a certificate
    ///   inside does not parse (with its position), `.noCertificates` when it holds none.
    static func certificates(in bytes: [UInt8], source: String?) throws -> [DERCertificate] {
        func malformed(_ why: String) -> CertificateLoadingError {
            CertificateLoadingError(source: source, reason: .malformedCertificate("a PKCS#7 bundle whose \(why)"))
        }
        let root: ASN1Node
        do {
            root = try BER.parse(bytes)
        } catch {
            throw malformed("encoding does not parse: \(CertificateLoader.readable(error))")
        }
        // ContentInfo ::= SEQUENCE { contentType OID, content [0] EXPLICIT SignedData }
        guard root.identifier == .sequence, case .constructed(let contentInfo) = root.content else {
            throw malformed("outer structure is not a SEQUENCE")
        }
        let parts = Array(contentInfo)
        guard parts.count == 2, (try? ASN1ObjectIdentifier(berEncoded: parts[0])) == signedDataType else {
            throw malformed("content is not SignedData")
        }
        guard parts[1].identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
            case .constructed(let wrapped) = parts[1].content, let signedData = Array(wrapped).first,
            signedData.identifier == .sequence, case .constructed(let signedFields) = signedData.content
        else {
            throw malformed("SignedData is not a SEQUENCE inside [0]")
        }
        // SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo SEQUENCE,
        //   certificates [0] IMPLICIT SET OF CertificateChoices OPTIONAL, crls [1] OPTIONAL,
        //   signerInfos SET }
        let certificatesTag = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
        guard let field = signedFields.first(where: { $0.identifier == certificatesTag }),
            case .constructed(let choices) = field.content
        else {
            throw CertificateLoadingError(source: source, reason: .noCertificates)
        }
        var certificates: [DERCertificate] = []
        // CertificateChoices: only plain certificates (a SEQUENCE) are read; the obsolete
        // extended and attribute certificates ([0]…[3]) are passed over.
        for (index, choice) in choices.enumerated() where choice.identifier == .sequence {
            do {
                certificates.append(try DERCertificate(derBytes: choice.encodedBytes))
            } catch let error as CertificateLoadingError {
                throw error.naming(source ?? "PKCS#7 bundle", index: index)
            }
        }
        guard !certificates.isEmpty else { throw CertificateLoadingError(source: source, reason: .noCertificates) }
        return certificates
    }
}
