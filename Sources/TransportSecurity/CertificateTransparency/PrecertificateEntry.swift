import Crypto
import Foundation
import SwiftASN1
import X509

/// What a log signed for an SCT embedded in a certificate (RFC 6962 §3.2): the precertificate
/// entry, rebuilt from the final certificate by removing the SCT-list extension from its
/// TBSCertificate, with the SHA-256 of the issuer's public key.
public struct PrecertificateEntry: Sendable, Hashable {
    /// SHA-256 of the issuer's SubjectPublicKeyInfo DER.
    public var issuerKeyHash: [UInt8]
    /// The leaf's TBSCertificate without the SCT-list extension, DER.
    public var tbsCertificate: [UInt8]

    /// The entry for `leaf` issued by `issuer`.
    public init(leaf: DERCertificate, issuer: DERCertificate) throws(CertificateTransparencyError) {
        issuerKeyHash = Array(SHA256.hash(data: issuer.subjectPublicKeyInfoBytes))
        tbsCertificate = try Self.removingSCTList(from: Array(leaf.certificate.tbsCertificateBytes))
    }

    /// An entry from its parts (for logs that sign precertificates).
    public init(issuerKeyHash: [UInt8], tbsCertificate: [UInt8]) {
        self.issuerKeyHash = issuerKeyHash
        self.tbsCertificate = tbsCertificate
    }

    /// The bytes the log's signature covers for an SCT with this timestamp and these extensions.
    public func signedData(timestamp: UInt64, extensions: [UInt8]) -> [UInt8] {
        var data: [UInt8] = [0, 0]  // sct_version v1, signature_type certificate_timestamp
        data += TLSWriter.integer(timestamp, 8)
        data += TLSWriter.integer(1, 2)  // entry_type precert_entry
        data += issuerKeyHash
        data += TLSWriter.vector(tbsCertificate, lengthBytes: 3)
        data += TLSWriter.vector(extensions, lengthBytes: 2)
        return data
    }

    /// A TBSCertificate's DER with the SCT-list extension taken out (and the extensions field
    /// dropped if nothing else is left in it).
    static func removingSCTList(from tbs: [UInt8]) throws(CertificateTransparencyError) -> [UInt8] {
        do {
            let root = try DER.parse(tbs)
            guard case .constructed(let fields) = root.content else { throw CertificateTransparencyError("the TBSCertificate is not a SEQUENCE") }
            let extensionsTag = ASN1Identifier(tagWithNumber: 3, tagClass: .contextSpecific)
            var serializer = DER.Serializer()
            try serializer.appendConstructedNode(identifier: root.identifier) { tbsWriter in
                for field in fields {
                    guard field.identifier == extensionsTag, case .constructed(let wrapped) = field.content,
                        let list = wrapped.first(where: { _ in true }), case .constructed(let extensions) = list.content
                    else {
                        tbsWriter.serialize(field)
                        continue
                    }
                    let kept = try extensions.filter { try Certificate.Extension(derEncoded: $0).oid != SignedCertificateTimestamp.listExtensionOID }
                    guard !kept.isEmpty else { continue }
                    tbsWriter.appendConstructedNode(identifier: extensionsTag) { explicitWriter in
                        explicitWriter.appendConstructedNode(identifier: list.identifier) { listWriter in
                            for node in kept { listWriter.serialize(node) }
                        }
                    }
                }
            }
            return serializer.serializedBytes
        } catch let error as CertificateTransparencyError {
            throw error
        } catch {
            throw CertificateTransparencyError("cannot rebuild the precertificate: \(error)")
        }
    }
}
