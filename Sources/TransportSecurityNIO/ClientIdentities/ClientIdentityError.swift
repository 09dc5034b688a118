/// A client identity that cannot be loaded, naming the input and why. The passphrase never
/// appears in it.
public struct ClientIdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the identity cannot be loaded.
    public enum Reason: Sendable, Equatable {
        /// The file cannot be read.
        case unreadable(String)
        /// The input is empty.
        case empty
        /// The passphrase does not open the PKCS#12 data or the encrypted key.
        case wrongPassphrase
        /// The PEM private key is encrypted and no passphrase was given.
        case passphraseRequired
        /// The data is not PKCS#12 (or is corrupt or truncated).
        case notPKCS12(String)
        /// The data is PKCS#12 in a form BoringSSL does not accept (no integrity MAC, an
        /// encryption algorithm it does not implement); the text says which and how to re-export.
        case unsupportedPKCS12(String)
        /// The PKCS#12 data or PEM holds no private key.
        case noPrivateKey
        /// The private key exists but sits where it cannot be checked without decrypting it first
        /// (inside an encrypted PKCS#12 container), which swift-nio-ssl cannot do safely.
        case privateKeyNotReadable
        /// No certificate came with the key.
        case noCertificate
        /// The private key is not the key of the leaf certificate.
        case keyDoesNotMatchCertificate
        /// The private key belongs to a later certificate of the chain than the first: the chain
        /// lists its issuers before its leaf (`cat intermediate.pem leaf.pem`). Carries the
        /// position (1-based) and subject of the certificate the key belongs to.
        case chainOutOfOrder(keyCertificatePosition: Int, subject: String)
        /// The certificate PEM does not parse.
        case malformedCertificate(String)
        /// The private key PEM does not parse.
        case malformedPrivateKey(String)
        /// The private key is held outside the process (a custom key, an HSM's), so it cannot be
        /// checked against the certificate where it was given.
        case externalKeyNotCheckable
        /// The external key signs with none of the algorithms the certificate's public key
        /// verifies. Carries the algorithms it offers and the certificate's kind of key.
        case externalKeyAlgorithms(offered: [String], certificateKey: String)
        /// The external key's signature does not verify with the certificate's public key: the
        /// key does not belong to the certificate. Carries the algorithm of the signature.
        case externalKeySignatureInvalid(algorithm: String)
    }

    /// The file, or a description of the data.
    public let source: String
    /// Why loading failed.
    public let reason: Reason

    /// Creates an error.
    public init(source: String, reason: Reason) {
        self.source = source
        self.reason = reason
    }

    /// A sentence naming the input and the reason.
    public var description: String {
        let why: String
        switch reason {
        case .unreadable(let detail): why = "cannot be read: \(detail)"
        case .empty: why = "is empty"
        case .wrongPassphrase: why = "cannot be opened: the passphrase is wrong"
        case .passphraseRequired: why = "has an encrypted private key: give its passphrase"
        case .notPKCS12(let detail): why = "is not PKCS#12 data, or is corrupt or truncated (\(detail))"
        case .unsupportedPKCS12(let detail): why = "is PKCS#12 in a form that cannot be loaded: \(detail)"
        case .noPrivateKey: why = "contains no private key"
        case .privateKeyNotReadable: why = "keeps its private key inside an encrypted container, which cannot be loaded safely; export it with the key in a shrouded key bag (the default of openssl pkcs12 -export)"
        case .noCertificate: why = "contains no certificate"
        case .keyDoesNotMatchCertificate: why = "has a private key that does not belong to its certificate"
        case .chainOutOfOrder(let position, let subject):
            why = "lists its certificates out of order: the private key belongs to certificate #\(position) (\(subject)), "
                + "which must come first (the leaf, then the certificates that issued it)"
        case .malformedCertificate(let detail): why = "has a certificate that does not parse: \(detail)"
        case .malformedPrivateKey(let detail): why = "has a private key that does not parse: \(detail)"
        case .externalKeyNotCheckable:
            why = "has a private key whose public half cannot be read (a key held outside this process, NIOSSLPrivateKey(customPrivateKey:)), "
                + "so it cannot be checked against the certificate: give such a key as ClientIdentity(certificateChain:externalKey:)"
        case .externalKeyAlgorithms(let offered, let certificateKey):
            why = "has an external key that signs with \(offered.isEmpty ? "no algorithm" : offered.joined(separator: ", ")), "
                + "none of which the certificate's \(certificateKey) key verifies: the key does not belong to the certificate"
        case .externalKeySignatureInvalid(let algorithm):
            why = "has an external key whose signature (\(algorithm)) does not verify with the certificate's public key: "
                + "the key does not belong to the certificate"
        }
        return "client identity \(source) \(why)"
    }
}
