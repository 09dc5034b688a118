import Crypto
import CryptoExtras
import Foundation

/// The private key that signs a client's assertions for `private_key_jwt` (RFC 7523 §2.2,
/// OpenID Connect Core §9), the client authentication FAPI asks of bank APIs: a P-256 key
/// (`ES256`), a P-384 key (`ES384`) or an RSA key of 2048 bits or more (`PS256`, or `RS256`
/// where a server asks for it). Its description never shows the key.
public struct ClientAssertionKey: Sendable, CustomStringConvertible {
    /// A JWS signature algorithm (RFC 7518 §3.1).
    public enum Algorithm: String, Sendable, Hashable {
        /// ECDSA with P-256 and SHA-256.
        case es256 = "ES256"
        /// ECDSA with P-384 and SHA-384.
        case es384 = "ES384"
        /// RSASSA-PSS with SHA-256 (MGF1 with SHA-256, a 32-byte salt).
        case ps256 = "PS256"
        /// RSASSA-PKCS1-v1_5 with SHA-256.
        case rs256 = "RS256"
    }

    private enum Backing: Sendable {
        case p256(P256.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey, pss: Bool)
    }

    /// The algorithm its signatures are made with (the JWT's `alg`).
    public let algorithm: Algorithm
    /// The key's identifier at the authorization server (the JWT's `kid`), when given.
    public let keyID: String?
    private let backing: Backing

    /// Reads a PEM private key (`PRIVATE KEY`, `EC PRIVATE KEY` or `RSA PRIVATE KEY`).
    /// - Parameters:
    ///   - pemEncoded: The key.
    ///   - keyID: Its identifier at the server (`kid`), when the server needs one to find it.
    ///   - rsaAlgorithm: For an RSA key, `PS256` (the default, as FAPI asks) or `RS256`.
    /// - Throws: ``OAuthError/unusableAssertionKey(_:)`` for what is not such a key, an RSA key
    ///   shorter than 2048 bits, or an EC algorithm asked for an RSA key.
    public init(pemEncoded: String, keyID: String? = nil, rsaAlgorithm: Algorithm = .ps256) throws {
        self.keyID = keyID
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pemEncoded) {
            (backing, algorithm) = (.p256(key), .es256)
        } else if let key = try? P384.Signing.PrivateKey(pemRepresentation: pemEncoded) {
            (backing, algorithm) = (.p384(key), .es384)
        } else if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pemEncoded) {
            guard key.keySizeInBits >= 2048 else {
                throw OAuthError.unusableAssertionKey("an RSA key of \(key.keySizeInBits) bits: client assertions need 2048 or more (RFC 7518 §3.3)")
            }
            guard rsaAlgorithm == .ps256 || rsaAlgorithm == .rs256 else {
                throw OAuthError.unusableAssertionKey("an RSA key signs with PS256 or RS256, not \(rsaAlgorithm.rawValue)")
            }
            (backing, algorithm) = (.rsa(key, pss: rsaAlgorithm == .ps256), rsaAlgorithm)
        } else if let weak = try? _RSA.Signing.PrivateKey(unsafePEMRepresentation: pemEncoded) {
            throw OAuthError.unusableAssertionKey("an RSA key of \(weak.keySizeInBits) bits: client assertions need 2048 or more (RFC 7518 §3.3)")
        } else if pemEncoded.contains("ENCRYPTED PRIVATE KEY") {
            throw OAuthError.unusableAssertionKey("an encrypted private key: give it decrypted (openssl pkey -in KEY -out PLAIN)")
        } else {
            throw OAuthError.unusableAssertionKey("not a PEM P-256, P-384 or RSA private key")
        }
    }

    /// `ClientAssertionKey(ES256, kid …)`: no key material.
    public var description: String {
        "ClientAssertionKey(\(algorithm.rawValue)\(keyID.map { ", kid \($0)" } ?? ""))"
    }

    /// The JWS signature of `input` (RFC 7518 §3: `R || S` for ECDSA).
    func sign(_ input: Data) throws -> Data {
        switch backing {
        case .p256(let key): return try key.signature(for: input).rawRepresentation
        case .p384(let key): return try key.signature(for: input).rawRepresentation
        case .rsa(let key, let pss): return try key.signature(for: input, padding: pss ? .PSS : .insecurePKCS1v1_5).rawRepresentation
        }
    }
}
