import Crypto
import CryptoExtras
import Foundation

extension HTTPSignatureKey {
    /// Reads a private JSON Web Key (RFC 7517): `OKP` Ed25519 (`d`, `x`), `EC` P-256 or P-384
    /// (`d`, `x`, `y`), `RSA` (`n`, `e`, `d`, `p`, `q`; 2048 bits or more) or `oct` (`k`, 32 bytes
    /// or more). Its `alg` (a JWS name or RFC 9421's) fixes the algorithm; without one, an RSA
    /// key signs with `rsaAlgorithm`.
    /// - Parameters:
    ///   - jwk: The JSON object.
    ///   - id: The `keyid`; its `kid` when `nil`.
    ///   - rsaAlgorithm: For an RSA key without `alg`.
    /// - Throws: ``HTTPSignatureError/unusableKey(_:)`` saying what is wrong: no private part,
    ///   a public part that is not the private key's, and every refusal of
    ///   ``HTTPSignatureVerificationKey/init(jwk:id:rsaAlgorithm:)``.
    public init(jwk: Data, id: String? = nil, rsaAlgorithm: HTTPSignatureAlgorithm = .rsaPSSSHA512) throws(HTTPSignatureError) {
        let key = try JSONWebKey.decode(jwk)
        let expected = try HTTPSignatureVerificationKey(jwk: key, id: id, rsaAlgorithm: rsaAlgorithm)
        let backing: Backing
        let d = expected.algorithm == .hmacSHA256 ? Data() : try key.bytes("d", key.d)
        switch expected.backing {
        case .ed25519(let publicKey):
            guard let privateKey = try? Curve25519.Signing.PrivateKey(rawRepresentation: d),
                  privateKey.publicKey.rawRepresentation == publicKey.rawRepresentation else {
                throw .unusableKey("the JWK's 'd' is not the private key of its 'x'")
            }
            backing = .ed25519(privateKey)
        case .p256(let publicKey):
            let scalar = try key.fieldElement("d", key.d, size: 32)
            guard let privateKey = try? P256.Signing.PrivateKey(rawRepresentation: scalar),
                  privateKey.publicKey.x963Representation == publicKey.x963Representation else {
                throw .unusableKey("the JWK's 'd' is not the private key of its 'x' and 'y'")
            }
            backing = .p256(privateKey)
        case .p384(let publicKey):
            let scalar = try key.fieldElement("d", key.d, size: 48)
            guard let privateKey = try? P384.Signing.PrivateKey(rawRepresentation: scalar),
                  privateKey.publicKey.x963Representation == publicKey.x963Representation else {
                throw .unusableKey("the JWK's 'd' is not the private key of its 'x' and 'y'")
            }
            backing = .p384(privateKey)
        case .rsa:
            let (n, e, p, q) = (try key.bytes("n", key.n), try key.bytes("e", key.e), try key.bytes("p", key.p), try key.bytes("q", key.q))
            guard let privateKey = try? _RSA.Signing.PrivateKey(n: n, e: e, d: d, p: p, q: q) else {
                throw .unusableKey("the JWK's 'n', 'e', 'd', 'p' and 'q' are not an RSA private key")
            }
            backing = .rsa(privateKey)
        case .hmac(let secret):
            backing = .hmac(secret)
        }
        self.init(id: expected.id, algorithm: expected.algorithm, backing: backing)
    }
}
