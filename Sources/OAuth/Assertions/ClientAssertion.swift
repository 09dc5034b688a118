import Foundation

/// A client assertion (RFC 7523 §3): a JWT the client signs to prove itself to the token
/// endpoint, made anew for every token request — issuer and subject the client, audience the
/// token endpoint, a unique `jti`, valid for a minute from its `iat`.
package enum ClientAssertion {
    /// The form field naming the kind of assertion (RFC 7523 §2.2).
    package static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// How long an assertion is valid.
    package static let lifetime: TimeInterval = 60

    /// The signed JWT: `header.claims.signature`, each part base64url without padding.
    package static func make(clientID: String, audience: URL, key: ClientAssertionKey, at now: Date = Date(), id: UUID = UUID()) throws -> String {
        var header: [String: Any] = ["typ": "JWT"]
        if let keyID = key.keyID { header["kid"] = keyID }
        let issued = Int(now.timeIntervalSince1970)
        let claims: [String: Any] = [
            "iss": clientID, "sub": clientID, "aud": audience.withoutUserInformation, "jti": id.uuidString.lowercased(),
            "iat": issued, "exp": issued + Int(lifetime),
        ]
        return try JWT.signed(header: header, claims: claims, key: key.signingKey)
    }
}
