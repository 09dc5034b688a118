import SwiftASN1
import TransportSecurity
import X509

/// A certificate made by the ``PKI``, with the key pair it certifies.
public struct IssuedCertificate: Sendable {
    /// The certificate.
    public let certificate: Certificate
    /// The key pair whose public half the certificate holds; it signs what this certificate issues.
    public let keyPair: KeyPair
    /// The profile the certificate was made from, kept for re-issuing.
    public let profile: CertificateProfile

    /// The certificate's DER encoding.
    public var derBytes: [UInt8] {
        // Serializing a certificate this package just built cannot fail.
        var serializer = DER.Serializer()
        do {
            try serializer.serialize(certificate)
        } catch {
            preconditionFailure("a certificate built by the PKI cannot fail to serialize: \(error)")
        }
        return serializer.serializedBytes
    }

    /// The certificate as the engine sees it: parsed, with its exact DER.
    public var der: DERCertificate {
        do {
            return try DERCertificate(derBytes: derBytes)
        } catch {
            preconditionFailure("a certificate built by the PKI always parses: \(error)")
        }
    }

    /// The certificate as one PEM block.
    public var pemString: String {
        PEMDocument(type: "CERTIFICATE", derBytes: derBytes).pemString
    }

    /// The private key as a PKCS#8 PEM block (for servers and client identities under test).
    public var privateKeyPEM: String {
        get throws { try keyPair.privateKey.serializeAsPEM().pemString }
    }
}

extension Array where Element == IssuedCertificate {
    /// The certificates as one PEM bundle, in order.
    public var pemBundle: String {
        map(\.pemString).joined(separator: "\n") + "\n"
    }
}
