import Crypto
import CryptoExtras
import Foundation

/// A private key that makes JWS signatures (RFC 7515) for the JWTs a client signs, client
/// assertions and DPoP proofs: a P-256 key (`ES256`), a P-384 key (`ES384`) or an RSA key of
/// 2048 bits or more (`PS256`, or `RS256`), with its public key as a JWK (RFC 7517).
package struct JWSSigningKey: Sendable {
    /// Why a PEM text is no usable key.
    package struct Unusable: Error {
        let reason: String
    }

    private enum Backing: Sendable {
        case p256(P256.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey, pss: Bool)
    }

    /// The algorithm its signatures are made with (the JWS `alg`).
    package let algorithm: ClientAssertionKey.Algorithm
    private let backing: Backing

    /// Reads a PEM private key (`PRIVATE KEY`, `EC PRIVATE KEY` or `RSA PRIVATE KEY`).
    /// - Parameters:
    ///   - pemEncoded: The key.
    ///   - rsaAlgorithm: For an RSA key, `PS256` or `RS256`.
    ///   - purpose: What the signatures are for, in the reason of a refusal ("client assertions").
    /// - Throws: ``Unusable`` for what is not such a key, an RSA key shorter than 2048 bits, or
    ///   an EC algorithm asked for an RSA key.
    package init(pemEncoded: String, rsaAlgorithm: ClientAssertionKey.Algorithm, purpose: String) throws(Unusable) {
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pemEncoded) {
            (backing, algorithm) = (.p256(key), .es256)
        } else if let key = try? P384.Signing.PrivateKey(pemRepresentation: pemEncoded) {
            (backing, algorithm) = (.p384(key), .es384)
        } else if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pemEncoded) {
            guard key.keySizeInBits >= 2048 else {
                throw Unusable(reason: "an RSA key of \(key.keySizeInBits) bits: \(purpose) need 2048 or more (RFC 7518 §3.3)")
            }
            guard rsaAlgorithm == .ps256 || rsaAlgorithm == .rs256 else {
                throw Unusable(reason: "an RSA key signs with PS256 or RS256, not \(rsaAlgorithm.rawValue)")
            }
            (backing, algorithm) = (.rsa(key, pss: rsaAlgorithm == .ps256), rsaAlgorithm)
        } else if let weak = try? _RSA.Signing.PrivateKey(unsafePEMRepresentation: pemEncoded) {
            throw Unusable(reason: "an RSA key of \(weak.keySizeInBits) bits: \(purpose) need 2048 or more (RFC 7518 §3.3)")
        } else if pemEncoded.contains("ENCRYPTED PRIVATE KEY") {
            throw Unusable(reason: "an encrypted private key: give it decrypted (openssl pkey -in KEY -out PLAIN)")
        } else {
            throw Unusable(reason: "not a PEM P-256, P-384 or RSA private key")
        }
    }

    /// A new P-256 key (`ES256`), made here and held in memory only.
    package static func generatedP256() -> JWSSigningKey { JWSSigningKey(backing: .p256(P256.Signing.PrivateKey()), algorithm: .es256) }

    private init(backing: Backing, algorithm: ClientAssertionKey.Algorithm) {
        self.backing = backing
        self.algorithm = algorithm
    }

    /// The JWS signature of `input` (RFC 7518 §3: `R || S` for ECDSA).
    package func sign(_ input: Data) throws -> Data {
        switch backing {
        case .p256(let key): return try key.signature(for: input).rawRepresentation
        case .p384(let key): return try key.signature(for: input).rawRepresentation
        case .rsa(let key, let pss): return try key.signature(for: input, padding: pss ? .PSS : .insecurePKCS1v1_5).rawRepresentation
        }
    }

    /// The public key as a JWK with its required members only (RFC 7518 §6.2.1, §6.3.1):
    /// `kty`, `crv`, `x`, `y` for EC; `kty`, `n`, `e` for RSA. Never the private parts.
    package var publicJWK: [String: String] {
        switch backing {
        case .p256(let key): return Self.ecJWK(curve: "P-256", x963: key.publicKey.x963Representation)
        case .p384(let key): return Self.ecJWK(curve: "P-384", x963: key.publicKey.x963Representation)
        case .rsa(let key, _):
            // BoringSSL gives a key's own primitives; it cannot fail for a key it made.
            let primitives = try! key.publicKey.getKeyPrimitives()
            return ["kty": "RSA", "n": JWT.base64URL(primitives.modulus), "e": JWT.base64URL(primitives.publicExponent)]
        }
    }

    /// An EC public key's JWK from its uncompressed point (`04 || x || y`).
    private static func ecJWK(curve: String, x963: Data) -> [String: String] {
        let coordinates = x963.dropFirst()
        let half = coordinates.count / 2
        return ["kty": "EC", "crv": curve, "x": JWT.base64URL(coordinates.prefix(half)), "y": JWT.base64URL(coordinates.suffix(half))]
    }

    /// The JWK SHA-256 thumbprint of `jwk` (RFC 7638 §3): the digest of its required members
    /// as JSON in the order of their names, without white space, in base64url.
    package static func thumbprint(of jwk: [String: String]) -> String {
        let required: [String] = switch jwk["kty"] {
        case "EC": ["crv", "kty", "x", "y"]
        case "RSA": ["e", "kty", "n"]
        default: jwk.keys.sorted()
        }
        let members = required.compactMap { name in jwk[name].map { "\(JWT.jsonString(name)):\(JWT.jsonString($0))" } }
        return JWT.base64URL(Data(SHA256.hash(data: Data(("{" + members.joined(separator: ",") + "}").utf8))))
    }
}
