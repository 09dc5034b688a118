import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import TransportSecurity
import X509

/// A private key and its certificate chain: the certificate a client presents for mutual TLS,
/// or the one a server presents.
///
/// Loaded from PKCS#12 (a file, bytes or base64 text, with a passphrase) or from PEM
/// (certificate chain and private key). Each way loading can fail has its own
/// ``ClientIdentityError``; the passphrase never appears in an error or a log.
public struct ClientIdentity: Sendable {
    /// The certificates, leaf first.
    public let certificateChain: [NIOSSLCertificate]
    /// The private key of the leaf.
    public let privateKey: NIOSSLPrivateKey
    /// The leaf as the engine sees it (subject, pins).
    public let leaf: DERCertificate
    /// SHA-256 over the presented certificates (each one's SHA-256, in order): what tells two
    /// identities apart where connections and TLS contexts are kept per identity, a renewed
    /// intermediate under the same leaf included.
    package let chainFingerprint: [UInt8]

    /// Creates an identity from parts already loaded, checking that the key is the leaf's.
    ///
    /// A key held outside the process (`NIOSSLPrivateKey(customPrivateKey:)`: an HSM's, a
    /// cloud KMS's) is refused here, its pairing with the certificate being beyond checking:
    /// give it to ``init(certificateChain:externalKey:source:)`` instead.
    /// - Throws: ``ClientIdentityError``.
    public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey, source: String = "identity") throws {
        let leaf = try Self.leaf(of: certificateChain, source: source)
        let publicKey = Self.publicKey(of: privateKey)
        // A key whose DER swift-nio-ssl gives but which does not parse is a custom key (an
        // HSM's): BoringSSL would pair it with any certificate.
        if publicKey == nil, (try? privateKey.derBytes) != nil {
            throw ClientIdentityError(source: source, reason: .externalKeyNotCheckable)
        }
        let matches = publicKey.map { $0 == leaf.certificate.publicKey } ?? Self.boringSSLPairs(privateKey, with: certificateChain[0])
        guard matches else {
            throw ClientIdentityError(source: source, reason: Self.mismatch(of: publicKey, in: certificateChain))
        }
        self.init(checkedChain: certificateChain, privateKey: privateKey, leaf: leaf)
    }

    /// The first certificate of `chain`, parsed.
    static func leaf(of chain: [NIOSSLCertificate], source: String) throws(ClientIdentityError) -> DERCertificate {
        guard let first = chain.first else {
            throw ClientIdentityError(source: source, reason: .noCertificate)
        }
        do {
            return try DERCertificate(derBytes: first.toDERBytes())
        } catch {
            throw ClientIdentityError(source: source, reason: .malformedCertificate("\(error)"))
        }
    }

    /// An identity from a chain whose leaf is `leaf` and a key already checked against it.
    init(checkedChain certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey, leaf: DERCertificate) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.leaf = leaf
        var hasher = SHA256()
        hasher.update(data: leaf.sha256Fingerprint)
        for certificate in certificateChain.dropFirst() {
            hasher.update(data: Array(SHA256.hash(data: (try? certificate.toDERBytes()) ?? [])))
        }
        self.chainFingerprint = Array(hasher.finalize())
    }

    /// Loads PEM text: a certificate chain (leaf first) and a private key, optionally encrypted.
    public init(certificateChainPEM: String, privateKeyPEM: String, passphrase: String? = nil, source: String = "PEM data") throws {
        // No PEM certificate block at all (a key file, some other text): BoringSSL would say only
        // "failedToLoadCertificate".
        guard certificateChainPEM.contains("CERTIFICATE-----") else {
            throw ClientIdentityError(source: source, reason: .noCertificate)
        }
        // Empty, or PEM without a key block (the certificate file given twice): no key at all.
        guard !privateKeyPEM.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
            !privateKeyPEM.contains("-----BEGIN") || privateKeyPEM.contains("PRIVATE KEY-----")
        else {
            throw ClientIdentityError(source: source, reason: .noPrivateKey)
        }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(certificateChainPEM.utf8))
        } catch {
            throw ClientIdentityError(source: source, reason: .malformedCertificate(Self.describe(error)))
        }
        let key: NIOSSLPrivateKey
        do {
            if let passphrase {
                key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem) { provide in
                    provide(Array(passphrase.utf8))
                }
            } else {
                key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
            }
        } catch {
            let encrypted = privateKeyPEM.contains("ENCRYPTED")
            let reason: ClientIdentityError.Reason =
                !encrypted ? .malformedPrivateKey(Self.describe(error)) : passphrase == nil ? .passphraseRequired : .wrongPassphrase
            throw ClientIdentityError(source: source, reason: reason)
        }
        try self.init(certificateChain: certificates, privateKey: key, source: source)
    }

    /// Loads a PEM certificate-chain file and a PEM private-key file.
    public init(certificateFile: String, privateKeyFile: String, passphrase: String? = nil) throws {
        let source = "\(certificateFile) + \(privateKeyFile)"
        let certificates = try Self.readData(certificateFile)
        // A DER certificate starts with a SEQUENCE whose length takes one or two more bytes.
        if certificates.count > 2, certificates.first == 0x30, [0x81, 0x82].contains(certificates[certificates.startIndex + 1]) {
            throw ClientIdentityError(source: source, reason: .malformedCertificate(
                "\(certificateFile) is DER (binary), not PEM text; tsec convert \(certificateFile) -o FILE.pem --to pem writes it as PEM"
            ))
        }
        try self.init(
            certificateChainPEM: String(decoding: certificates, as: UTF8.self),
            privateKeyPEM: Self.readText(privateKeyFile),
            passphrase: passphrase,
            source: source
        )
    }

    /// Loads PKCS#12 data.
    /// - Parameters:
    ///   - bytes: The DER (or BER) bytes.
    ///   - passphrase: The passphrase.
    ///   - source: A name for the data, used in errors.
    public init(pkcs12 bytes: [UInt8], passphrase: String, source: String = "PKCS#12 data") throws {
        guard !bytes.isEmpty else { throw ClientIdentityError(source: source, reason: .empty) }
        // swift-nio-ssl stops the process (fatalError) when the data parses but holds no key:
        // find out first, from the structure, without decrypting anything.
        switch PKCS12Contents.privateKeyPresence(in: bytes) {
        case .notPKCS12(let detail): throw ClientIdentityError(source: source, reason: .notPKCS12(detail))
        case .absent: throw ClientIdentityError(source: source, reason: .noPrivateKey)
        case .hiddenInEncryptedContainer: throw ClientIdentityError(source: source, reason: .privateKeyNotReadable)
        case .present: break
        }
        let bundle: NIOSSLPKCS12Bundle
        do {
            bundle = try NIOSSLPKCS12Bundle(buffer: bytes, passphrase: Array(passphrase.utf8))
        } catch {
            throw ClientIdentityError(source: source, reason: Self.classifyPKCS12Error(error))
        }
        try self.init(certificateChain: bundle.certificateChain, privateKey: bundle.privateKey, source: source)
    }

    /// Loads a PKCS#12 file (`.p12`, `.pfx`).
    public init(pkcs12File path: String, passphrase: String) throws {
        try self.init(pkcs12: Array(Self.readData(path)), passphrase: passphrase, source: path)
    }

    /// Loads PKCS#12 data given as base64 text (line breaks and spaces are ignored).
    public init(pkcs12Base64 text: String, passphrase: String, source: String = "PKCS#12 base64 text") throws {
        let compact = text.filter { !$0.isWhitespace }
        guard !compact.isEmpty else { throw ClientIdentityError(source: source, reason: .empty) }
        guard let data = Data(base64Encoded: compact) else {
            throw ClientIdentityError(source: source, reason: .notPKCS12("the text is not valid base64"))
        }
        try self.init(pkcs12: Array(data), passphrase: passphrase, source: source)
    }

    /// BoringSSL's errors, as swift-nio-ssl passes them on, in words.
    static func classifyPKCS12Error(_ error: any Error) -> ClientIdentityError.Reason {
        let text = String(describing: error)
        if text.contains("INCORRECT_PASSWORD") || text.contains("BAD_PASSWORD") || text.contains("DECRYPT") {
            return .wrongPassphrase
        }
        if text.contains("MISSING_MAC") {
            return .unsupportedPKCS12("it has no integrity MAC (exported with -nomac), which BoringSSL refuses; export it again with a MAC and a passphrase (openssl pkcs12 -export without -nomac)")
        }
        if text.contains("UNSUPPORTED_CIPHER") || text.contains("UNSUPPORTED_ENCRYPTION") || text.contains("UNKNOWN_ALGORITHM")
            || text.contains("UNSUPPORTED_KEY_DERIVATION") || text.contains("UNSUPPORTED_PRF")
        {
            return .unsupportedPKCS12("it is encrypted with an algorithm BoringSSL does not implement; export it again with AES (openssl pkcs12 -export, OpenSSL 3's default) [\(TLSFailureText.reasonCode(in: text) ?? "unknown")]")
        }
        if text.contains("BAD_PKCS12") || text.contains("DECODE") || text.contains("ASN1") || text.contains("HEADER") {
            return .notPKCS12(Self.describe(error))
        }
        return .notPKCS12(text.isEmpty || text.hasSuffix("[])") ? "no detail from BoringSSL" : Self.describe(error))
    }

    /// Why a key that is not the leaf's does not fit: it is a later certificate's (the chain is
    /// out of order), or no certificate's.
    private static func mismatch(of publicKey: Certificate.PublicKey?, in chain: [NIOSSLCertificate]) -> ClientIdentityError.Reason {
        guard let publicKey else { return .keyDoesNotMatchCertificate }
        for (index, certificate) in chain.enumerated().dropFirst() {
            if let parsed = try? DERCertificate(derBytes: certificate.toDERBytes()), parsed.certificate.publicKey == publicKey {
                return .chainOutOfOrder(keyCertificatePosition: index + 1, subject: parsed.subjectSummary)
            }
        }
        return .keyDoesNotMatchCertificate
    }

    /// Whether BoringSSL takes `key` as `certificate`'s (it refuses a TLS context whose key does
    /// not match its certificate): for keys swift-nio-ssl cannot export (Ed25519: BoringSSL
    /// writes only RSA, EC and DSA keys in their own DER forms).
    private static func boringSSLPairs(_ key: NIOSSLPrivateKey, with certificate: NIOSSLCertificate) -> Bool {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateChain = [.certificate(certificate)]
        configuration.privateKey = .privateKey(key)
        return (try? NIOSSLContext(configuration: configuration)) != nil
    }

    /// The public half of `key`, when swift-nio-ssl can export the key (RSA and EC).
    static func publicKey(of key: NIOSSLPrivateKey) -> Certificate.PublicKey? {
        guard let der = try? key.derBytes else { return nil }
        for type in ["PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"] {
            if let parsed = try? Certificate.PrivateKey(pemDocument: PEMDocument(type: type, derBytes: der)) {
                return parsed.publicKey
            }
        }
        return nil
    }

    private static func readData(_ path: String) throws -> Data {
        do {
            return try InputFile.read(path)
        } catch {
            throw ClientIdentityError(source: path, reason: .unreadable(error.description))
        }
    }

    private static func readText(_ path: String) throws -> String {
        String(decoding: try readData(path), as: UTF8.self)
    }

    private static func describe(_ error: any Error) -> String {
        String(describing: error)
    }
}

extension ClientIdentity: Hashable {
    /// Two identities are the same when they present the same certificates (a leaf has one key).
    public static func == (lhs: ClientIdentity, rhs: ClientIdentity) -> Bool {
        lhs.certificateChain == rhs.certificateChain
    }

    /// Hashes the presented certificates.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(certificateChain)
    }
}
