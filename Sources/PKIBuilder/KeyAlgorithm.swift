import Crypto
import X509
import CryptoExtras

/// The kinds of key pair the ``PKI`` can generate.
public enum KeyAlgorithm: String, Sendable, CaseIterable, Codable {
    /// ECDSA over NIST P-256, signing with SHA-256.
    case p256
    /// ECDSA over NIST P-384, signing with SHA-384.
    case p384
    /// ECDSA over NIST P-521, signing with SHA-512.
    case p521
    /// RSA with a 2048-bit modulus, signing with PKCS#1 v1.5 and SHA-256.
    case rsa2048
    /// Ed25519.
    case ed25519

    /// The signature algorithm a key of this kind signs certificates with by default.
    public var defaultSignatureAlgorithm: Certificate.SignatureAlgorithm {
        switch self {
        case .p256: return .ecdsaWithSHA256
        case .p384: return .ecdsaWithSHA384
        case .p521: return .ecdsaWithSHA512
        case .rsa2048: return .sha256WithRSAEncryption
        case .ed25519: return .ed25519
        }
    }
}

/// A freshly generated key pair, usable as a certificate's subject key or as an issuer key.
public struct KeyPair: Sendable {
    /// The kind of key.
    public let algorithm: KeyAlgorithm
    /// The private half, which signs certificates issued by this key.
    public let privateKey: Certificate.PrivateKey

    /// The public half, which goes into a certificate's `SubjectPublicKeyInfo`.
    public var publicKey: Certificate.PublicKey { privateKey.publicKey }

    /// Generates a new key pair of the given kind.
    /// - Parameter algorithm: The kind of key to generate.
    /// - Throws: When the cryptographic library cannot generate the key (RSA only).
    public init(generating algorithm: KeyAlgorithm) throws {
        self.algorithm = algorithm
        switch algorithm {
        case .p256: self.privateKey = Certificate.PrivateKey(P256.Signing.PrivateKey())
        case .p384: self.privateKey = Certificate.PrivateKey(P384.Signing.PrivateKey())
        case .p521: self.privateKey = Certificate.PrivateKey(P521.Signing.PrivateKey())
        case .rsa2048: self.privateKey = Certificate.PrivateKey(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        case .ed25519: self.privateKey = Certificate.PrivateKey(Curve25519.Signing.PrivateKey())
        }
    }

    /// An RSA key pair made elsewhere (by `openssl genrsa`, say), including sizes swift-crypto
    /// does not generate (a 2052-bit modulus), for tests of the key-size rules. It signs as
    /// ``KeyAlgorithm/rsa2048`` does: PKCS#1 v1.5 with SHA-256.
    /// - Parameter pem: The private key in PEM (PKCS#1 or PKCS#8).
    public init(rsaPrivateKeyPEM pem: String) throws {
        self.algorithm = .rsa2048
        self.privateKey = Certificate.PrivateKey(try _RSA.Signing.PrivateKey(unsafePEMRepresentation: pem))
    }
}
