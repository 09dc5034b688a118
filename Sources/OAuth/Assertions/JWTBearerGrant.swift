import Foundation

/// The JWT bearer grant (RFC 7523 §2.1) as Google's token endpoint takes it: a JWT signed with a
/// service account's key, made anew for every token request — issuer the account, audience the
/// token endpoint, the scopes as its `scope` claim, the user it acts for as `sub` (domain-wide
/// delegation), valid an hour from its `iat`.
package enum JWTBearerGrant {
    /// The token request's `grant_type`.
    package static let type = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// How long a grant is valid (the most Google takes).
    package static let lifetime: TimeInterval = 3600

    /// The signed grant.
    package static func make(account: ServiceAccountKey, subject: String?, scopes: [String], audience: URL, at now: Date = Date()) throws -> String {
        var header: [String: Any] = ["typ": "JWT"]
        if let keyID = account.keyID { header["kid"] = keyID }
        let issued = Int(now.timeIntervalSince1970)
        var claims: [String: Any] = ["iss": account.clientEmail, "aud": audience.withoutUserInformation, "iat": issued, "exp": issued + Int(lifetime)]
        if !scopes.isEmpty { claims["scope"] = scopes.joined(separator: " ") }
        if let subject { claims["sub"] = subject }
        return try JWT.signed(header: header, claims: claims, key: account.signingKey.signingKey)
    }
}
