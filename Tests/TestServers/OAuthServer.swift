import Foundation
import NIOHTTP1

/// A small OAuth 2.0 authorization server and API for the tests (``HTTPTestServer``'s
/// `POST /oauth/token` and `/oauth/api`): the client `partner` with the secret `s3cret`
/// (`client_secret_basic` or `client_secret_post`), or with a client certificate whose subject
/// names `partner` (`tls_client_auth`), gets `token-N` for the client-credentials grant; the
/// API accepts the tokens issued and not revoked. A token request with a `DPoP` proof (ES256,
/// ``DPoPProofCheck``) gets a `DPoP` token bound to the proof's key. The token URL's query can
/// break the answer: `broken=json|type|characters|lifetime`, or `broken=unbound` (a `Bearer`
/// token whatever the proof).
public final class OAuthServer: @unchecked Sendable {
    private let lock = NSLock()
    private var issued = 0
    private var valid: Set<String> = []
    private var requests: [(headers: [(String, String)], body: String)] = []
    private var queries: [[String: String]] = []
    private var lifetime: Int? = 3600
    private var acceptsTokens = true
    private var boundKeys: [String: String] = [:]

    public init() {}

    /// The `expires_in` of the tokens issued from now on (`nil`: none stated).
    public func setLifetime(_ seconds: Int?) { lock.withLock { lifetime = seconds } }

    /// Whether the API accepts the tokens issued (`false`: it refuses every one, a client that
    /// lost its rights).
    public func setAcceptsTokens(_ accepts: Bool) { lock.withLock { acceptsTokens = accepts } }

    /// Makes every token issued so far unacceptable to the API.
    public func revokeAll() { lock.withLock { valid.removeAll() } }

    /// How many tokens were issued.
    public var issuedCount: Int { lock.withLock { issued } }

    /// The token requests received, in order: their header fields and bodies.
    public var tokenRequests: [(headers: [(String, String)], body: String)] { lock.withLock { requests } }

    /// The query of each token request received, in order (`via=mtls` for the mutual-TLS alias
    /// the metadata names).
    public var tokenRequestQueries: [[String: String]] { lock.withLock { queries } }

    /// The status and JSON answering a token request.
    func answerTokenRequest(headers: HTTPHeaders, body: String, clientCertificate: String?, query: [String: String]) -> (Int, String) {
        lock.withLock {
            requests.append((headers.map { ($0.name, $0.value) }, body))
            queries.append(query)
        }
        let fields = Self.formFields(body)
        guard fields["grant_type"] == "client_credentials" else { return (400, #"{"error":"unsupported_grant_type"}"#) }
        guard isPartner(headers: headers, fields: fields, clientCertificate: clientCertificate) else {
            return (401, #"{"error":"invalid_client","error_description":"unknown client or wrong secret"}"#)
        }
        if fields["scope"]?.split(separator: " ").contains("forbidden") == true {
            return (400, #"{"error":"invalid_scope","error_description":"the scope forbidden is not granted"}"#)
        }
        switch query["broken"] {
        case "json": return (200, "<html>not json</html>")
        case "type": return (200, #"{"access_token":"abc","token_type":"mac"}"#)
        case "characters": return (200, #"{"access_token":"abc\r\nX-Injected: 1","token_type":"Bearer"}"#)
        case "lifetime": return (200, #"{"access_token":"abc","token_type":"Bearer","expires_in":-5}"#)
        default: break
        }
        var boundKey: String?
        if let proof = headers.first(name: "DPoP"), query["broken"] != "unbound" {
            guard let check = try? DPoPProofCheck(proof), check.method == "POST", check.tokenHash == nil else {
                return (400, #"{"error":"invalid_dpop_proof"}"#)
            }
            boundKey = check.thumbprint
        }
        let (token, lifetime) = lock.withLock { () -> (String, Int?) in
            issued += 1
            let token = "token-\(issued)"
            valid.insert(token)
            boundKeys[token] = boundKey
            return (token, self.lifetime)
        }
        let expiry = lifetime.map { #","expires_in":\#($0)"# } ?? ""
        let scope = fields["scope"].map { #","scope":"\#($0)""# } ?? ""
        let type = boundKey == nil ? "Bearer" : "DPoP"
        return (200, #"{"access_token":"\#(token)","token_type":"\#(type)"\#(expiry)\#(scope)}"#)
    }

    /// The authorization server metadata (RFC 8414) at `path` of the server at `origin`, for the
    /// issuer `origin` + TENANT: at `/.well-known/oauth-authorization-server` + TENANT, or (for
    /// tenants under `/oidc`, only there) at TENANT + `/.well-known/openid-configuration`. The
    /// token endpoint `/oauth/token`, its mutual-TLS alias `/oauth/token?via=mtls`, the four
    /// client authentications, DPoP with ES256 and PS256. Tenants that break it: `/mixup` names
    /// another issuer, `/cleartext` an http token endpoint, `/secret-only` takes
    /// `client_secret_basic` only, `/missing` has none (and `/moved`'s moved: the test server
    /// redirects to another origin). `nil`: no metadata at `path`.
    func metadata(path: String, origin: String) -> String? {
        let wellKnown = "/.well-known/oauth-authorization-server"
        let openID = "/.well-known/openid-configuration"
        let tenant: String
        if path.hasPrefix(wellKnown), !path.dropFirst(wellKnown.count).hasPrefix("/oidc") {
            tenant = String(path.dropFirst(wellKnown.count))
        } else if path.hasSuffix(openID), path.hasPrefix("/oidc") {
            tenant = String(path.dropLast(openID.count))
        } else {
            return nil
        }
        var fields: [String: Any] = [
            "issuer": origin + tenant,
            "token_endpoint": origin + "/oauth/token",
            "mtls_endpoint_aliases": ["token_endpoint": origin + "/oauth/token?via=mtls"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "tls_client_auth", "private_key_jwt"],
            "dpop_signing_alg_values_supported": ["ES256", "PS256"],
        ]
        switch tenant {
        case "/mixup": fields["issuer"] = origin + "/elsewhere"
        case "/cleartext": fields["token_endpoint"] = "http" + origin.dropFirst("https".count) + "/oauth/token"
        case "/secret-only": fields["token_endpoint_auth_methods_supported"] = ["client_secret_basic"]
        case "/missing": return nil
        default: break
        }
        return (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The fields of a form-encoded body (the first of each name).
    public static func formFields(_ body: String) -> [String: String] {
        Dictionary(
            body.split(separator: "&").map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
                return (parts[0], parts.count > 1 ? parts[1] : "")
            },
            uniquingKeysWith: { first, _ in first }
        )
    }

    /// The token an `Authorization` field carries, when the API accepts it: a bearer token, or
    /// with `proofKey` a `DPoP` one bound to that key's thumbprint.
    public func acceptedToken(_ authorization: String?, proofKey: String? = nil) -> String? {
        let scheme = proofKey == nil ? "Bearer " : "DPoP "
        guard let authorization, authorization.hasPrefix(scheme) else { return nil }
        let token = String(authorization.dropFirst(scheme.count))
        return lock.withLock { acceptsTokens && valid.contains(token) && boundKeys[token] == proofKey } ? token : nil
    }

    private func isPartner(headers: HTTPHeaders, fields: [String: String], clientCertificate: String?) -> Bool {
        if let basic = headers.first(name: "Authorization"), basic.hasPrefix("Basic "),
            let decoded = Data(base64Encoded: String(basic.dropFirst(6))).map({ String(decoding: $0, as: UTF8.self) })
        {
            let parts = decoded.split(separator: ":", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            return parts == ["partner", "s3cret"]
        }
        guard fields["client_id"] == "partner" else { return false }
        if let secret = fields["client_secret"] { return secret == "s3cret" }
        return clientCertificate?.contains("partner") == true
    }
}
