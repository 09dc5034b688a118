import Crypto
import Foundation

/// A DPoP proof (RFC 9449 §4): a JWT signed with the client's ``DPoPKey`` for one request —
/// its method and URL, when it was made, a unique `jti`, the server's nonce when it gave one, and
/// for a request carrying an access token, that token's hash — sent in the `DPoP` field.
package enum DPoPProof {
    /// The request field that carries the proof.
    package static let field = "DPoP"
    /// The response field in which a server gives the nonce to put in proofs (§8, §9).
    package static let nonceField = "DPoP-Nonce"
    /// The error a server names when it wants a proof with its nonce (§8, §9).
    package static let nonceError = "use_dpop_nonce"

    /// Whether a resource server's `WWW-Authenticate` values ask for a proof with its nonce
    /// (§9): a demand for a nonce, not a refusal of the token.
    package static func demandsNonce(_ challenges: some Sequence<String>) -> Bool {
        challenges.contains { $0.contains(nonceError) }
    }

    /// The proof for `method` to `url`.
    /// - Parameters:
    ///   - accessToken: The token the request carries (its SHA-256 becomes `ath`); none for a
    ///     token request.
    ///   - nonce: The server's nonce, when it gave one.
    package static func make(
        method: String,
        url: URL,
        key: DPoPKey,
        accessToken: String? = nil,
        nonce: String? = nil,
        at now: Date = Date(),
        id: UUID = UUID()
    ) throws -> String {
        let header: [String: Any] = ["typ": "dpop+jwt", "jwk": key.signingKey.publicJWK]
        var claims: [String: Any] = [
            "jti": id.uuidString.lowercased(), "htm": method, "htu": targetURI(of: url), "iat": Int(now.timeIntervalSince1970),
        ]
        if let accessToken { claims["ath"] = JWT.base64URL(Data(SHA256.hash(data: Data(accessToken.utf8)))) }
        if let nonce { claims["nonce"] = nonce }
        return try JWT.signed(header: header, claims: claims, key: key.signingKey)
    }

    /// `htu`: the request's URL without its query and fragment (§4.2).
    package static func targetURI(of url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteString }
        parts.query = nil
        parts.fragment = nil
        // RFC 9449 §4.2: the URI without query and fragment; a user and password would be a
        // secret inside a token the server and its logs read.
        parts.percentEncodedUser = nil
        parts.percentEncodedPassword = nil
        return parts.string ?? url.withoutUserInformation
    }
}
