import Crypto
import CryptoExtras
import Foundation

/// The key an `HTTPMessageSigner` (SecureSession) signs with (RFC 9421): an Ed25519, P-256, P-384 or RSA
/// (2048 bits or more) private key, or an HMAC shared secret, with the `keyid` the verifier
/// knows it by. Its description never shows key material.
///
/// ```swift
/// let key = try HTTPSignatureKey(id: "partner-2026", pemEncoded: String(contentsOfFile: "signing-key.pem", encoding: .utf8))
/// ```
public struct HTTPSignatureKey: Sendable, CustomStringConvertible {
    enum Backing: Sendable {
        case ed25519(Curve25519.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
        case hmac(SymmetricKey)
    }

    /// The `keyid` signatures name (the verifier finds its key by it).
    public let id: String
    /// The algorithm its signatures are made with.
    public let algorithm: HTTPSignatureAlgorithm
    let backing: Backing

    /// Reads a PEM private key: `PRIVATE KEY` (PKCS #8: Ed25519, P-256, P-384 or RSA),
    /// `EC PRIVATE KEY` or `RSA PRIVATE KEY`.
    /// - Parameters:
    ///   - id: The `keyid`.
    ///   - pemEncoded: The key.
    ///   - rsaAlgorithm: For an RSA key, ``HTTPSignatureAlgorithm/rsaPSSSHA512`` (the default)
    ///     or ``HTTPSignatureAlgorithm/rsaPKCS1v15SHA256``.
    /// - Throws: ``HTTPSignatureError/unusableKey(_:)`` for what is not such a key, an RSA key
    ///   shorter than 2048 bits, an encrypted key, or a non-RSA algorithm asked of an RSA key.
    public init(id: String, pemEncoded: String, rsaAlgorithm: HTTPSignatureAlgorithm = .rsaPSSSHA512) throws(HTTPSignatureError) {
        self.id = id
        if let key = try? Curve25519.Signing.PrivateKey(pemRepresentation: pemEncoded) {
            (backing, algorithm) = (.ed25519(key), .ed25519)
        } else if let key = try? P256.Signing.PrivateKey(pemRepresentation: pemEncoded) {
            (backing, algorithm) = (.p256(key), .ecdsaP256SHA256)
        } else if let key = try? P384.Signing.PrivateKey(pemRepresentation: pemEncoded) {
            (backing, algorithm) = (.p384(key), .ecdsaP384SHA384)
        } else if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pemEncoded) {
            guard rsaAlgorithm == .rsaPSSSHA512 || rsaAlgorithm == .rsaPKCS1v15SHA256 else {
                throw .unusableKey("an RSA key signs with rsa-pss-sha512 or rsa-v1_5-sha256, not \(rsaAlgorithm.rawValue)")
            }
            (backing, algorithm) = (.rsa(key), rsaAlgorithm)
        } else if let weak = try? _RSA.Signing.PrivateKey(unsafePEMRepresentation: pemEncoded) {
            throw .unusableKey("an RSA key of \(weak.keySizeInBits) bits: HTTP message signatures need 2048 or more")
        } else if pemEncoded.contains("ENCRYPTED PRIVATE KEY") {
            throw .unusableKey("an encrypted private key: give it decrypted (openssl pkey -in KEY -out PLAIN)")
        } else {
            throw .unusableKey("not a PEM Ed25519, P-256, P-384 or RSA private key")
        }
    }

    /// An HMAC-SHA256 shared secret (``HTTPSignatureAlgorithm/hmacSHA256``).
    /// - Throws: ``HTTPSignatureError/unusableKey(_:)`` for a secret shorter than 32 bytes (the
    ///   length of the hash: a shorter one is easier to guess than the MAC is to forge).
    public init(id: String, sharedSecret: some DataProtocol) throws(HTTPSignatureError) {
        guard sharedSecret.count >= 32 else {
            throw .unusableKey("an HMAC secret of \(sharedSecret.count) bytes: hmac-sha256 needs 32 or more")
        }
        self.id = id
        self.algorithm = .hmacSHA256
        self.backing = .hmac(SymmetricKey(data: Data(sharedSecret)))
    }

    /// A new key of `algorithm`, made here and held in memory only (its public half from
    /// ``verificationKey`` goes to the verifier).
    public static func generated(id: String, algorithm: HTTPSignatureAlgorithm = .ed25519) -> HTTPSignatureKey {
        let backing: Backing
        switch algorithm {
        case .ed25519: backing = .ed25519(Curve25519.Signing.PrivateKey())
        case .ecdsaP256SHA256: backing = .p256(P256.Signing.PrivateKey())
        case .ecdsaP384SHA384: backing = .p384(P384.Signing.PrivateKey())
        // A fresh 2048-bit key always succeeds.
        case .rsaPSSSHA512, .rsaPKCS1v15SHA256: backing = .rsa(try! _RSA.Signing.PrivateKey(keySize: .bits2048))
        case .hmacSHA256: backing = .hmac(SymmetricKey(size: .bits256))
        }
        return HTTPSignatureKey(id: id, algorithm: algorithm, backing: backing)
    }

    init(id: String, algorithm: HTTPSignatureAlgorithm, backing: Backing) {
        self.id = id
        self.algorithm = algorithm
        self.backing = backing
    }

    /// What verifies this key's signatures: the public key (the shared secret itself for HMAC),
    /// under the same `keyid` and algorithm.
    public var verificationKey: HTTPSignatureVerificationKey {
        switch backing {
        case .ed25519(let key): HTTPSignatureVerificationKey(id: id, algorithm: algorithm, backing: .ed25519(key.publicKey))
        case .p256(let key): HTTPSignatureVerificationKey(id: id, algorithm: algorithm, backing: .p256(key.publicKey))
        case .p384(let key): HTTPSignatureVerificationKey(id: id, algorithm: algorithm, backing: .p384(key.publicKey))
        case .rsa(let key): HTTPSignatureVerificationKey(id: id, algorithm: algorithm, backing: .rsa(key.publicKey))
        case .hmac(let secret): HTTPSignatureVerificationKey(id: id, algorithm: algorithm, backing: .hmac(secret))
        }
    }

    /// The signature of `base` (the signature base's bytes).
    package func signature(of base: Data) throws -> Data {
        switch backing {
        case .ed25519(let key): try key.signature(for: base)
        case .p256(let key): try key.signature(for: base).rawRepresentation
        case .p384(let key): try key.signature(for: base).rawRepresentation
        case .rsa(let key) where algorithm == .rsaPKCS1v15SHA256:
            try key.signature(for: SHA256.hash(data: base), padding: .insecurePKCS1v1_5).rawRepresentation
        case .rsa(let key): try key.signature(for: SHA512.hash(data: base), padding: .PSS).rawRepresentation
        case .hmac(let secret): Data(HMAC<SHA256>.authenticationCode(for: base, using: secret))
        }
    }

    /// `HTTPSignatureKey(ed25519, keyid "…")`: no key material.
    public var description: String { "HTTPSignatureKey(\(algorithm.rawValue), keyid \"\(id)\")" }
}
