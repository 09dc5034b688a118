import Foundation
import TransportSecurity

/// Why `OAuthClientCredentials` could not give a request an access token. Failures to reach
/// the token endpoint are the token session's `SecureSessionError`s (a token endpoint whose pin
/// does not match is `trustRejected`, with its decision).
public enum OAuthError: Error, Sendable, CustomStringConvertible {
    /// The token endpoint refused to issue a token: its status and the error it named
    /// (RFC 6749 §5.2: `invalid_client`, `invalid_scope`, `unauthorized_client`, …) with its
    /// description, when it sent them.
    case tokenRequestRefused(status: Int, error: String?, description: String?)
    /// The token endpoint answered with a success that holds no usable token: not JSON, no
    /// `access_token`, a token that cannot be written in a header, a token type other than
    /// `Bearer` (`DPoP` when the client asked for a DPoP-bound token), an `expires_in` that is
    /// no number of seconds.
    case invalidTokenResponse(String)
    /// The token endpoint is not an https URL: the client's secret would travel in cleartext.
    case insecureTokenEndpoint(URL)
    /// The key given for `private_key_jwt` cannot sign client assertions: the reason.
    case unusableAssertionKey(String)
    /// A request for one of the interceptor's hosts is not over https: its token would travel
    /// in cleartext; nothing was sent.
    case cleartextRequest(URL)
    /// A service account's key file cannot be used: the file and the reason.
    case unusableServiceAccountKey(String)
    /// The key given for DPoP cannot sign proofs: the reason.
    case unusableProofKey(String)
    /// The authorization server's metadata (RFC 8414), at the URL, cannot be used: the reason
    /// (none found, another issuer's, no https token endpoint, the client's authentication or
    /// DPoP algorithm not taken).
    case unusableMetadata(URL, String)
    /// A DPoP-bound token was asked for as a bare authorization value
    /// (`OAuthClientCredentials.authorizationValue`): it goes only with a proof made for
    /// its request (`OAuthClientCredentials.authorization`).
    case proofRequiredPerRequest

    /// A sentence saying what went wrong; what the server wrote is escaped.
    public var description: String {
        switch self {
        case .tokenRequestRefused(let status, let error, let detail):
            let named = error.map { " (\($0)\(detail.map { ": \($0)" } ?? ""))" } ?? ""
            return "the token endpoint refused to issue a token: HTTP \(status)\(named)".escapingControlCharacters
        case .invalidTokenResponse(let reason):
            return "the token endpoint's answer holds no usable token: \(reason)".escapingControlCharacters
        case .insecureTokenEndpoint(let url):
            return "the token endpoint \(url.redacted) is not https: the client's credentials would travel in cleartext"
        case .unusableAssertionKey(let reason):
            return "the key for client assertions cannot be used: \(reason)"
        case .cleartextRequest(let url):
            return "refused to send a bearer token to \(url.redacted) in cleartext (only https)"
        case .unusableServiceAccountKey(let reason):
            return "the service account key cannot be used: \(reason)".escapingControlCharacters
        case .unusableProofKey(let reason):
            return "the key for DPoP proofs cannot be used: \(reason)"
        case .unusableMetadata(let url, let reason):
            return "the authorization server's metadata at \(url.redacted) cannot be used: \(reason)".escapingControlCharacters
        case .proofRequiredPerRequest:
            return "a DPoP-bound token goes only with a proof made for its request, not as a bare authorization value (gRPC calls: OAuthCallCredentials(credentials, server:) makes proofs for them)"
        }
    }
}
