import Crypto
import Foundation
import SwiftASN1
import X509

/// A parsed X.509 certificate together with the exact DER bytes it was read from.
///
/// Certificate pinning compares certificates byte for byte and public keys by their
/// `SubjectPublicKeyInfo` bytes, so both are kept exactly as they arrived rather than
/// re-encoded. The SPKI pin and the SHA-256 fingerprint are computed once, when the value is made.
public struct DERCertificate: Sendable, Hashable, CustomStringConvertible {
    /// Everything is kept in one immutable object, so that copying a certificate through chains,
    /// indexes and decisions costs one reference count, not one per field.
    private final class Storage: Sendable {
        let certificate: Certificate
        let derBytes: [UInt8]
        let subjectPublicKeyInfoBytes: [UInt8]
        let spkiPin: SPKIPin
        let sha256Fingerprint: [UInt8]
        let subjectSummary: String

        init(certificate: Certificate, derBytes: [UInt8], subjectPublicKeyInfoBytes: [UInt8]) {
            self.certificate = certificate
            self.derBytes = derBytes
            self.subjectPublicKeyInfoBytes = subjectPublicKeyInfoBytes
            self.spkiPin = SPKIPin(subjectPublicKeyInfoDER: subjectPublicKeyInfoBytes)
            self.sha256Fingerprint = Array(SHA256.hash(data: derBytes))
            self.subjectSummary = String(describing: certificate.subject).escapingControlCharacters
        }
    }

    private let storage: Storage

    /// The parsed certificate.
    public var certificate: Certificate { storage.certificate }
    /// The certificate's DER encoding, as received.
    public var derBytes: [UInt8] { storage.derBytes }
    /// The DER encoding of the certificate's whole `SubjectPublicKeyInfo` (algorithm and key).
    public var subjectPublicKeyInfoBytes: [UInt8] { storage.subjectPublicKeyInfoBytes }
    /// The SPKI pin of the certificate's public key.
    public var spkiPin: SPKIPin { storage.spkiPin }
    /// SHA-256 over ``derBytes``.
    public var sha256Fingerprint: [UInt8] { storage.sha256Fingerprint }
    /// The subject distinguished name, as text (made once: every message uses it).
    public var subjectSummary: String { storage.subjectSummary }

    /// Parses a DER-encoded certificate.
    /// - Parameter derBytes: The DER encoding.
    /// - Throws: ``CertificateLoadingError`` with reason ``CertificateLoadingError/Reason/malformedCertificate(_:)``
    ///   when the bytes are not a certificate this library can read.
    public init(derBytes: some Collection<UInt8>) throws {
        let bytes = Array(derBytes)
        let certificate: Certificate
        let spki: [UInt8]
        do {
            certificate = try Certificate(derEncoded: bytes)
            spki = try Self.extractSubjectPublicKeyInfo(tbsCertificate: certificate.tbsCertificateBytes)
        } catch {
            let why = DERFraming.explanation(of: error, in: bytes) ?? Self.refusedAlgorithm(of: error, in: bytes) ?? CertificateLoader.readable(error)
            throw CertificateLoadingError(source: nil, reason: .malformedCertificate(why))
        }
        storage = Storage(certificate: certificate, derBytes: bytes, subjectPublicKeyInfoBytes: spki)
    }

    /// Wraps a certificate built in memory, encoding it as DER.
    /// - Parameter certificate: The certificate.
    /// - Throws: When the certificate cannot be serialized.
    public init(_ certificate: Certificate) throws {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        try self.init(derBytes: serializer.serializedBytes)
    }

    /// The issuer distinguished name, as text.
    public var issuerSummary: String { String(describing: certificate.issuer).escapingControlCharacters }

    /// Whether `certificate` is this certificate: the same signed part and signature. Reads the
    /// two fields in place, without copying the parsed certificate.
    func isSame(as certificate: Certificate) -> Bool {
        storage.certificate.tbsCertificateBytes == certificate.tbsCertificateBytes
            && storage.certificate.signature == certificate.signature
    }

    /// Whether the certificate's public key is the same key as `other`'s (SPKI DER equality).
    public func hasSamePublicKey(as other: DERCertificate) -> Bool {
        subjectPublicKeyInfoBytes == other.subjectPublicKeyInfoBytes
    }

    /// The certificate as one PEM block.
    public var pemString: String { PEMDocument(type: "CERTIFICATE", derBytes: derBytes).pemString }

    /// The subject, for logs and messages.
    public var description: String { subjectSummary }

    /// Whether both hold the same DER bytes.
    public static func == (lhs: DERCertificate, rhs: DERCertificate) -> Bool {
        lhs.storage === rhs.storage || lhs.derBytes == rhs.derBytes
    }

    /// Hashes the certificate's SHA-256 fingerprint.
    public func hash(into hasher: inout Hasher) { hasher.combine(byteArray: sha256Fingerprint) }

    /// Reads the `subjectPublicKeyInfo` element out of a `TBSCertificate`, byte for byte.
    ///
    /// `TBSCertificate ::= SEQUENCE { version [0] EXPLICIT OPTIONAL, serialNumber, signature,
    /// issuer, validity, subject, subjectPublicKeyInfo, ... }`
    static func extractSubjectPublicKeyInfo(tbsCertificate: ArraySlice<UInt8>) throws -> [UInt8] {
        let root = try DER.parse(tbsCertificate)
        guard case .constructed(let children) = root.content else {
            throw ASN1Error.unexpectedFieldType(root.identifier)
        }
        var fields = Array(children)
        if let first = fields.first, first.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
            fields.removeFirst()
        }
        // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
        guard fields.count >= 6, fields[5].identifier == .sequence else {
            throw ASN1Error.invalidASN1Object(reason: "TBSCertificate has no subjectPublicKeyInfo")
        }
        return Array(fields[5].encodedBytes)
    }
}
