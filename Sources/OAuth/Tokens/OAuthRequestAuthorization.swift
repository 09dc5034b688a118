/// What authorizes one request with `OAuthClientCredentials`' token: the `Authorization`
/// value and, for a token bound by DPoP (RFC 9449), the proof made for that request's method and
/// URL. For requests that are not `SecureRequest`s, such as gRPC calls' metadata
/// (`OAuthClientCredentials.authorization`).
///
/// Both values carry the token (the proof its hash): never log them. The description shows
/// neither.
public struct OAuthRequestAuthorization: Sendable, CustomStringConvertible {
    /// The `Authorization` value: `Bearer <token>` or `DPoP <token>`.
    public let authorization: String
    /// The `DPoP` field's value, a proof for this request only; `nil` for a bearer token.
    public let proof: String?

    package init(authorization: String, proof: String?) {
        self.authorization = authorization
        self.proof = proof
    }

    /// `OAuthRequestAuthorization(Bearer)` or `OAuthRequestAuthorization(DPoP, with proof)`:
    /// the scheme, never the token.
    public var description: String {
        let scheme = authorization.prefix { $0 != " " }
        return "OAuthRequestAuthorization(\(scheme)\(proof == nil ? "" : ", with proof"))"
    }
}
