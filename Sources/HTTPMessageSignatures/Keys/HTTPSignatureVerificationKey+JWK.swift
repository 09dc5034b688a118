import Crypto
import CryptoExtras
import Foundation

extension HTTPSignatureVerificationKey {
    /// Reads a public JSON Web Key (RFC 7517; a private one's public part): `OKP` Ed25519, `EC`
    /// P-256 or P-384, `RSA` (2048 bits or more), or `oct` (an HMAC secret of 32 bytes or more).
    /// Its `alg`, a JWS name (`EdDSA`, `ES256`, `ES384`, `PS512`, `RS256`, `HS256`) or RFC 9421's,
    /// fixes the algorithm (RFC 9421 §3.3.7); without one, an RSA key verifies `rsaAlgorithm`.
    /// - Parameters:
    ///   - jwk: The JSON object.
    ///   - id: The `keyid`; its `kid` when `nil`.
    ///   - rsaAlgorithm: For an RSA key without `alg`.
    /// - Throws: ``HTTPSignatureError/unusableKey(_:)`` saying what is wrong: not JSON, no `kid`,
    ///   a key for encryption, a kind, curve or `alg` RFC 9421 does not sign with, a member
    ///   missing or not base64url, a point not on its curve, a short RSA key or secret.
    public init(jwk: Data, id: String? = nil, rsaAlgorithm: HTTPSignatureAlgorithm = .rsaPSSSHA512) throws(HTTPSignatureError) {
        try self.init(jwk: try JSONWebKey.decode(jwk), id: id, rsaAlgorithm: rsaAlgorithm)
    }

    /// The public key of a JWK already read.
    init(jwk key: JSONWebKey, id: String?, rsaAlgorithm: HTTPSignatureAlgorithm) throws(HTTPSignatureError) {
        let name = try key.keyID(id)
        let declared = try key.algorithm()
        switch (key.kty, key.crv) {
        case ("OKP", "Ed25519"):
            let algorithm = try key.checked(declared, allowed: [.ed25519], fallback: .ed25519)
            let x = try key.bytes("x", key.x)
            guard let publicKey = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else {
                throw .unusableKey("the JWK's 'x' is not an Ed25519 public key")
            }
            self.init(id: name, algorithm: algorithm, backing: .ed25519(publicKey))
        case ("EC", "P-256"):
            let algorithm = try key.checked(declared, allowed: [.ecdsaP256SHA256], fallback: .ecdsaP256SHA256)
            let point = try key.uncompressedPoint(size: 32)
            guard let publicKey = try? P256.Signing.PublicKey(x963Representation: point) else {
                throw .unusableKey("the JWK's 'x' and 'y' are not a point of P-256")
            }
            self.init(id: name, algorithm: algorithm, backing: .p256(publicKey))
        case ("EC", "P-384"):
            let algorithm = try key.checked(declared, allowed: [.ecdsaP384SHA384], fallback: .ecdsaP384SHA384)
            let point = try key.uncompressedPoint(size: 48)
            guard let publicKey = try? P384.Signing.PublicKey(x963Representation: point) else {
                throw .unusableKey("the JWK's 'x' and 'y' are not a point of P-384")
            }
            self.init(id: name, algorithm: algorithm, backing: .p384(publicKey))
        case ("RSA", _):
            let algorithm = try key.checked(declared, allowed: [.rsaPSSSHA512, .rsaPKCS1v15SHA256], fallback: rsaAlgorithm)
            let (n, e) = (try key.bytes("n", key.n), try key.bytes("e", key.e))
            // swift-crypto refuses a modulus under 2048 bits without saying so.
            let significant = n.drop { $0 == 0 }
            let bits = significant.first.map { significant.count * 8 - $0.leadingZeroBitCount } ?? 0
            guard bits >= 2048 else {
                throw .unusableKey("an RSA key of \(bits) bits: HTTP message signatures need 2048 or more")
            }
            guard let publicKey = try? _RSA.Signing.PublicKey(n: n, e: e) else {
                throw .unusableKey("the JWK's 'n' and 'e' are not an RSA public key")
            }
            self.init(id: name, algorithm: algorithm, backing: .rsa(publicKey))
        case ("oct", _):
            _ = try key.checked(declared, allowed: [.hmacSHA256], fallback: .hmacSHA256)
            self = try HTTPSignatureVerificationKey(id: name, sharedSecret: try key.bytes("k", key.k))
        default:
            throw .unusableKey("a JWK of kty '\(key.kty ?? "none")'\(key.crv.map { " crv '\($0)'" } ?? ""): RFC 9421 signs with OKP Ed25519, EC P-256 or P-384, RSA and oct keys")
        }
    }

    /// The signature keys of a JWK set (`{"keys": [...]}`, a partner's published keys), each
    /// under its `kid`. Keys for encryption (`use` `enc`) are left out; any other key that
    /// cannot be used is an error, as are two keys of one `kid`.
    /// - Throws: ``HTTPSignatureError/unusableKey(_:)`` naming the key (its position and `kid`)
    ///   and the reason.
    public static func keys(jwkSet: Data) throws(HTTPSignatureError) -> [HTTPSignatureVerificationKey] {
        guard let object = try? JSONSerialization.jsonObject(with: jwkSet) as? [String: Any], let entries = object["keys"] as? [Any] else {
            throw .unusableKey("not a JWK set (a JSON object with a 'keys' array)")
        }
        var keys: [HTTPSignatureVerificationKey] = []
        for (index, entry) in entries.enumerated() {
            let member = entry as? [String: Any]
            let kid = (member?["kid"] as? String).map { " (kid \"\($0)\")" } ?? ""
            if let use = member?["use"] as? String, use != "sig" { continue }
            guard let member, let data = try? JSONSerialization.data(withJSONObject: member) else {
                throw .unusableKey("key \(index + 1) of the set is not a JSON object")
            }
            let key: HTTPSignatureVerificationKey
            do throws(HTTPSignatureError) {
                key = try HTTPSignatureVerificationKey(jwk: data)
            } catch {
                guard case .unusableKey(let reason) = error else { throw error }
                throw .unusableKey("key \(index + 1) of the set\(kid): \(reason)")
            }
            guard !keys.contains(where: { $0.id == key.id }) else {
                throw .unusableKey("key \(index + 1) of the set: a second key of kid \"\(key.id)\"")
            }
            keys.append(key)
        }
        return keys
    }
}
