import Crypto
import Foundation

/// A DPoP proof (RFC 9449 §4.3) checked as a server checks it, for the tests' servers: a JWS
/// whose header is `typ` `dpop+jwt`, `alg` `ES256` and a P-256 public `jwk` without private
/// members, whose signature that key verifies (swift-crypto), and whose claims are read back.
public struct DPoPProofCheck: Sendable {
    /// The RFC 7638 thumbprint of the proof's key (base64url SHA-256), the `jkt` a token is bound to.
    public let thumbprint: String
    /// `htm`: the request's method.
    public let method: String
    /// `htu`: the request's URL without query and fragment.
    public let targetURI: String
    /// `jti`: the proof's unique identifier.
    public let id: String
    /// `ath`: the access token's hash (``hash(ofToken:)``); none in a token request's proof.
    public let tokenHash: String?
    /// `nonce`: the server's nonce, when the proof carries one.
    public let nonce: String?
    /// `iat`: when the proof was made, in seconds since 1970.
    public let issuedAt: Int

    /// What is wrong with a proof.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// Checks `proof`'s form and signature and reads its claims.
    public init(_ proof: String) throws(Problem) {
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decoded(parts[0]), let claimsData = Base64URL.decoded(parts[1]),
            let signature = Base64URL.decoded(parts[2]),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any]
        else { throw Problem(description: "not a JWS of JSON objects") }
        guard header["typ"] as? String == "dpop+jwt", header["alg"] as? String == "ES256" else {
            throw Problem(description: "typ or alg")
        }
        guard let jwk = header["jwk"] as? [String: String], jwk["kty"] == "EC", jwk["crv"] == "P-256", jwk["d"] == nil,
            let x = jwk["x"], let y = jwk["y"], let xBytes = Base64URL.decoded(x), let yBytes = Base64URL.decoded(y),
            let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + xBytes + yBytes),
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { throw Problem(description: "key or signature") }
        guard let method = claims["htm"] as? String, let target = claims["htu"] as? String, let id = claims["jti"] as? String,
            let issuedAt = claims["iat"] as? Int
        else { throw Problem(description: "htm, htu, jti or iat missing") }
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        self.thumbprint = Base64URL.encoded(Data(SHA256.hash(data: Data(canonical.utf8))))
        self.method = method
        self.targetURI = target
        self.id = id
        self.tokenHash = claims["ath"] as? String
        self.nonce = claims["nonce"] as? String
        self.issuedAt = issuedAt
    }

    /// The `ath` of `token`: its SHA-256, base64url.
    public static func hash(ofToken token: String) -> String {
        Base64URL.encoded(Data(SHA256.hash(data: Data(token.utf8))))
    }
}
