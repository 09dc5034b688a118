import Foundation

/// The key a client proves it holds with every request under DPoP (RFC 9449), so that an
/// access token bound to it is worthless to whoever steals the token alone: FAPI 2.0's
/// sender-constrained tokens without a client certificate. A P-256 key (`ES256`, as
/// ``generated()`` makes), a P-384 key (`ES384`) or an RSA key of 2048 bits or more (`PS256`,
/// or `RS256`). Its description never shows the key.
public struct DPoPKey: Sendable, CustomStringConvertible {
    package let signingKey: JWSSigningKey

    /// The algorithm its proofs are signed with.
    public var algorithm: ClientAssertionKey.Algorithm { signingKey.algorithm }

    /// Reads a PEM private key (`PRIVATE KEY`, `EC PRIVATE KEY` or `RSA PRIVATE KEY`).
    /// - Parameters:
    ///   - pemEncoded: The key.
    ///   - rsaAlgorithm: For an RSA key, `PS256` (the default) or `RS256`.
    /// - Throws: ``OAuthError/unusableProofKey(_:)`` for what is not such a key, an RSA key
    ///   shorter than 2048 bits, or an EC algorithm asked for an RSA key.
    public init(pemEncoded: String, rsaAlgorithm: ClientAssertionKey.Algorithm = .ps256) throws {
        do {
            signingKey = try JWSSigningKey(pemEncoded: pemEncoded, rsaAlgorithm: rsaAlgorithm, purpose: "DPoP proofs")
        } catch {
            throw OAuthError.unusableProofKey(error.reason)
        }
    }

    private init(signingKey: JWSSigningKey) {
        self.signingKey = signingKey
    }

    /// A new P-256 key, held in memory only: what most clients use, one per process (its tokens
    /// die with it).
    public static func generated() -> DPoPKey { DPoPKey(signingKey: .generatedP256()) }

    /// The key's JWK SHA-256 thumbprint (RFC 7638), base64url: the `jkt` a server binds the
    /// tokens to (their `cnf.jkt`), and what `dpop_jkt` names (RFC 9449 §10).
    public var thumbprint: String { JWSSigningKey.thumbprint(of: signingKey.publicJWK) }

    /// `DPoPKey(ES256, jkt …)`: the public thumbprint, no key material.
    public var description: String { "DPoPKey(\(algorithm.rawValue), jkt \(thumbprint))" }
}
