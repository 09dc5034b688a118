import Crypto
import CryptoExtras
import Foundation
import X509

/// What an ``HTTPMessageSignatureVerifier`` checks a signature with: the signer's public key
/// (Ed25519, P-256, P-384 or RSA of 2048 bits or more) or an HMAC shared secret, under the
/// `keyid` signatures name it by, bound to one algorithm (a signature declaring another `alg`
/// is refused: RFC 9421 §3.2 step 6).
public struct HTTPSignatureVerificationKey: Sendable, CustomStringConvertible {
    enum Backing: Sendable {
        case ed25519(Curve25519.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
        case hmac(SymmetricKey)
    }

    /// The `keyid` of the signatures it verifies.
    public let id: String
    /// The one algorithm it verifies.
    public let algorithm: HTTPSignatureAlgorithm
    let backing: Backing

    init(id: String, algorithm: HTTPSignatureAlgorithm, backing: Backing) {
        self.id = id
        self.algorithm = algorithm
        self.backing = backing
    }

    /// Reads a PEM public key (`PUBLIC KEY`, SubjectPublicKeyInfo) or the public key of a PEM
    /// certificate.
    /// - Parameters:
    ///   - id: The `keyid`.
    ///   - pemEncoded: The key or certificate.
    ///   - rsaAlgorithm: For an RSA key, ``HTTPSignatureAlgorithm/rsaPSSSHA512`` (the default)
    ///     or ``HTTPSignatureAlgorithm/rsaPKCS1v15SHA256``.
    /// - Throws: ``HTTPSignatureError/unusableKey(_:)`` for what is not such a key, or an RSA
    ///   key shorter than 2048 bits.
    public init(id: String, pemEncoded: String, rsaAlgorithm: HTTPSignatureAlgorithm = .rsaPSSSHA512) throws(HTTPSignatureError) {
        let publicKey: Certificate.PublicKey
        if let certificate = try? Certificate(pemEncoded: pemEncoded) {
            publicKey = certificate.publicKey
        } else if let key = try? Certificate.PublicKey(pemEncoded: pemEncoded) {
            publicKey = key
        } else {
            throw .unusableKey("not a PEM public key (PUBLIC KEY) or certificate")
        }
        self.id = id
        if let key = Curve25519.Signing.PublicKey(publicKey) {
            (backing, algorithm) = (.ed25519(key), .ed25519)
        } else if let key = P256.Signing.PublicKey(publicKey) {
            (backing, algorithm) = (.p256(key), .ecdsaP256SHA256)
        } else if let key = P384.Signing.PublicKey(publicKey) {
            (backing, algorithm) = (.p384(key), .ecdsaP384SHA384)
        } else if let key = _RSA.Signing.PublicKey(publicKey) {
            guard key.keySizeInBits >= 2048 else {
                throw .unusableKey("an RSA key of \(key.keySizeInBits) bits: HTTP message signatures need 2048 or more")
            }
            guard rsaAlgorithm == .rsaPSSSHA512 || rsaAlgorithm == .rsaPKCS1v15SHA256 else {
                throw .unusableKey("an RSA key verifies rsa-pss-sha512 or rsa-v1_5-sha256, not \(rsaAlgorithm.rawValue)")
            }
            (backing, algorithm) = (.rsa(key), rsaAlgorithm)
        } else {
            throw .unusableKey("a public key of a kind HTTP message signatures do not use (Ed25519, P-256, P-384 or RSA)")
        }
    }

    /// An HMAC-SHA256 shared secret.
    /// - Throws: ``HTTPSignatureError/unusableKey(_:)`` for a secret shorter than 32 bytes.
    public init(id: String, sharedSecret: some DataProtocol) throws(HTTPSignatureError) {
        self = try HTTPSignatureKey(id: id, sharedSecret: sharedSecret).verificationKey
    }

    /// Whether `signature` is this key's signature of `base`.
    func isValidSignature(_ signature: Data, of base: Data) -> Bool {
        switch backing {
        case .ed25519(let key):
            return key.isValidSignature(signature, for: base)
        case .p256(let key):
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: base)
        case .p384(let key):
            guard let signature = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: base)
        case .rsa(let key) where algorithm == .rsaPKCS1v15SHA256:
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: base), padding: .insecurePKCS1v1_5)
        case .rsa(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA512.hash(data: base), padding: .PSS)
        case .hmac(let secret):
            // Constant time.
            return HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: base, using: secret)
        }
    }

    /// `HTTPSignatureVerificationKey(ed25519, keyid "…")`: no key material.
    public var description: String { "HTTPSignatureVerificationKey(\(algorithm.rawValue), keyid \"\(id)\")" }
}
