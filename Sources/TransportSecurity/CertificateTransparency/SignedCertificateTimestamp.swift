import Foundation
import SwiftASN1
import X509

/// One signed certificate timestamp (RFC 6962 §3.2, version 1): a log's promise, signed, that it
/// has logged the certificate.
public struct SignedCertificateTimestamp: Sendable, Hashable {
    /// The SHA-256 of the log's public key (its SubjectPublicKeyInfo DER).
    public var logID: [UInt8]
    /// When the log saw the certificate, in milliseconds since 1970.
    public var timestamp: UInt64
    /// The SCT's extensions (empty in practice).
    public var extensions: [UInt8]
    /// The TLS `HashAlgorithm` of the signature (4 = SHA-256).
    public var hashAlgorithm: UInt8
    /// The TLS `SignatureAlgorithm` of the signature (1 = RSA, 3 = ECDSA).
    public var signatureAlgorithm: UInt8
    /// The signature bytes (DER for ECDSA, PKCS #1 v1.5 for RSA).
    public var signature: [UInt8]

    /// `signed_certificate_timestamp_list`: the OID of the X.509 extension embedding SCTs.
    public static let listExtensionOID: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11129, 2, 4, 2]

    /// Makes an SCT from its fields.
    public init(logID: [UInt8], timestamp: UInt64, extensions: [UInt8] = [], hashAlgorithm: UInt8 = 4, signatureAlgorithm: UInt8, signature: [UInt8]) {
        self.logID = logID
        self.timestamp = timestamp
        self.extensions = extensions
        self.hashAlgorithm = hashAlgorithm
        self.signatureAlgorithm = signatureAlgorithm
        self.signature = signature
    }

    /// When the log saw the certificate.
    public var date: Date { Date(timeIntervalSince1970: Double(timestamp) / 1000) }

    /// The SCTs embedded in a certificate; empty when it has no SCT-list extension.
    /// - Throws: ``CertificateTransparencyError`` when the extension is malformed.
    public static func embedded(in certificate: Certificate) throws(CertificateTransparencyError) -> [SignedCertificateTimestamp] {
        guard let extensionValue = certificate.extensions[oid: listExtensionOID]?.value else { return [] }
        // The extension's value is a DER OCTET STRING holding the TLS-encoded list.
        let list: ASN1OctetString
        do {
            list = try ASN1OctetString(derEncoded: extensionValue)
        } catch {
            throw CertificateTransparencyError("the SCT-list extension is not an OCTET STRING")
        }
        return try parseList(Array(list.bytes))
    }

    /// Parses a TLS `SignedCertificateTimestampList`.
    static func parseList(_ bytes: [UInt8]) throws(CertificateTransparencyError) -> [SignedCertificateTimestamp] {
        var reader = TLSReader(bytes)
        var list = try reader.vector(lengthBytes: 2, "SCT list")
        guard reader.isAtEnd else { throw CertificateTransparencyError("bytes after the SCT list") }
        var timestamps: [SignedCertificateTimestamp] = []
        while !list.isAtEnd {
            var entry = try list.vector(lengthBytes: 2, "SCT")
            timestamps.append(try parse(&entry))
            guard entry.isAtEnd else { throw CertificateTransparencyError("bytes after an SCT") }
        }
        guard !timestamps.isEmpty else { throw CertificateTransparencyError("the SCT list is empty") }
        return timestamps
    }

    private static func parse(_ reader: inout TLSReader) throws(CertificateTransparencyError) -> SignedCertificateTimestamp {
        let version = try reader.integer(1, "SCT version")
        guard version == 0 else { throw CertificateTransparencyError("SCT version \(version + 1) is not supported") }
        let logID = try reader.bytes(32, "log ID")
        let timestamp = try reader.integer(8, "timestamp")
        let extensions = try reader.vector(lengthBytes: 2, "SCT extensions").remaining
        let hash = UInt8(try reader.integer(1, "hash algorithm"))
        let signatureAlgorithm = UInt8(try reader.integer(1, "signature algorithm"))
        let signature = try reader.vector(lengthBytes: 2, "signature").remaining
        return SignedCertificateTimestamp(
            logID: logID, timestamp: timestamp, extensions: extensions,
            hashAlgorithm: hash, signatureAlgorithm: signatureAlgorithm, signature: signature
        )
    }

    /// The TLS encoding of one SCT.
    public var serialized: [UInt8] {
        var bytes: [UInt8] = [0] + logID
        bytes += TLSWriter.integer(timestamp, 8)
        bytes += TLSWriter.vector(extensions, lengthBytes: 2)
        bytes += [hashAlgorithm, signatureAlgorithm]
        bytes += TLSWriter.vector(signature, lengthBytes: 2)
        return bytes
    }

    /// The TLS encoding of an SCT list (the content of the X.509 extension's OCTET STRING).
    public static func serializedList(_ timestamps: [SignedCertificateTimestamp]) -> [UInt8] {
        TLSWriter.vector(timestamps.flatMap { TLSWriter.vector($0.serialized, lengthBytes: 2) }, lengthBytes: 2)
    }
}
