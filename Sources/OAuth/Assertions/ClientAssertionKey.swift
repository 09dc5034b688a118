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

    /// The algorithm its signatures are made with (the JWT's `alg`).
    public let algorithm: Algorithm
    /// The key's identifier at the authorization server (the JWT's `kid`), when given.
    public let keyID: String?
    package let signingKey: JWSSigningKey

    /// Reads a PEM private key (`PRIVATE KEY`, `EC PRIVATE KEY` or `RSA PRIVATE KEY`).
    /// - Parameters:
    ///   - pemEncoded: The key.
    ///   - keyID: Its identifier at the server (`kid`), when the server needs one to find it.
    ///   - rsaAlgorithm: For an RSA key, `PS256` (the default, as FAPI asks) or `RS256`.
    /// - Throws: ``OAuthError/unusableAssertionKey(_:)`` for what is not such a key, an RSA key
    ///   shorter than 2048 bits, or an EC algorithm asked for an RSA key.
    public init(pemEncoded: String, keyID: String? = nil, rsaAlgorithm: Algorithm = .ps256) throws {
        self.keyID = keyID
        do {
            signingKey = try JWSSigningKey(pemEncoded: pemEncoded, rsaAlgorithm: rsaAlgorithm, purpose: "client assertions")
        } catch {
            throw OAuthError.unusableAssertionKey(error.reason)
        }
        algorithm = signingKey.algorithm
    }

    /// `ClientAssertionKey(ES256, kid …)`: no key material.
    public var description: String {
        "ClientAssertionKey(\(algorithm.rawValue)\(keyID.map { ", kid \($0)" } ?? ""))"
    }
}
