/// How an OAuth client proves who it is to the token endpoint (RFC 6749 §2.3, RFC 8705 §2).
/// Its description never shows a secret.
public enum OAuthClientAuthentication: Sendable, CustomStringConvertible {
    /// `client_secret_basic`: the client ID and secret in an HTTP Basic `Authorization` field,
    /// each form-encoded first (RFC 6749 §2.3.1). What servers must support.
    case clientSecretBasic(secret: String)
    /// `client_secret_post`: the client ID and secret as form fields of the request's body.
    case clientSecretPost(secret: String)
    /// `tls_client_auth` (RFC 8705 §2.1): the client certificate the token session presents in
    /// its mutual TLS proves the client; the body names the client ID. The tokens are then
    /// usually bound to that certificate (RFC 8705 §3): the session calling the API must present
    /// the same one.
    case mutualTLS
    /// `private_key_jwt` (RFC 7523 §2.2, OpenID Connect Core §9): a JWT the client signs with
    /// `key` for every token request (issuer and subject the client ID, audience the token
    /// endpoint, a unique `jti`, valid for a minute), the authorization server holding the
    /// public key. FAPI's choice beside mutual TLS.
    case privateKeyJWT(ClientAssertionKey)
    /// Not a client authentication of RFC 6749 §2.3 but, in its place, the JWT bearer grant
    /// (RFC 7523 §2.1): a JWT signed with the service account's key for every token request
    /// (issuer the account, audience the token endpoint, the scopes as its `scope` claim, the
    /// user it acts for as `sub` when `subject` is given, an hour from `iat`) is the grant, and
    /// proves the client. Google Cloud's service accounts.
    case jwtBearerGrant(ServiceAccountKey, subject: String?)

    /// `client_secret_basic`, `client_secret_post`, `tls_client_auth` or `private_key_jwt`:
    /// RFC 8414's name; the grant type for the JWT bearer grant.
    public var description: String {
        switch self {
        case .clientSecretBasic: return "client_secret_basic"
        case .clientSecretPost: return "client_secret_post"
        case .mutualTLS: return "tls_client_auth"
        case .privateKeyJWT: return "private_key_jwt"
        case .jwtBearerGrant: return JWTBearerGrant.type
        }
    }
}
