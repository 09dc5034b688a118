import ArgumentParser
import Foundation
import OAuth
import SecureSession
import TransportSecurityNIO

/// `tsec get`'s OAuth 2.0 client credentials (`--oauth2-token-url` and its kin): a token
/// obtained from the endpoint for the request (``OAuthClientCredentials``), the client's secret
/// read from the environment or a file, never from the command line.
struct OAuthOptions: ParsableArguments {
    @Option(name: .customLong("oauth2-token-url"), help: ArgumentHelp(
        "Get a bearer token for the request from this OAuth 2.0 token endpoint (https), by the client-credentials grant, judged by the same policy, pins and client identity as the URL.",
        valueName: "URL"
    ))
    var tokenURL: String?

    @Option(name: .customLong("oauth2-issuer"), help: ArgumentHelp(
        "In place of --oauth2-token-url: the authorization server's issuer (https), whose metadata (RFC 8414, or OpenID Connect's) names the token endpoint, or its mutual-TLS alias for tls or a client identity.",
        valueName: "URL"
    ))
    var issuer: String?

    @Option(name: .customLong("oauth2-service-account"), help: ArgumentHelp(
        "A Google Cloud service account's key file (JSON): the token from its token_uri by the JWT bearer grant (RFC 7523), with --oauth2-scope.",
        valueName: "FILE"
    ))
    var serviceAccount: String?

    /// Whether a token is asked for (`--oauth2-token-url`, `--oauth2-issuer` or
    /// `--oauth2-service-account`).
    var isRequested: Bool { tokenURL != nil || issuer != nil || serviceAccount != nil }

    @Option(name: .customLong("oauth2-client-id"), help: ArgumentHelp("The client's identifier at the token endpoint.", valueName: "ID"))
    var clientID: String?

    @Option(name: .customLong("oauth2-client-secret-env"), help: ArgumentHelp("The environment variable holding the client's secret.", valueName: "VAR"))
    var secretEnv: String?

    @Option(name: .customLong("oauth2-client-secret-file"), help: ArgumentHelp("A file whose first line is the client's secret.", valueName: "FILE"))
    var secretFile: String?

    @Option(name: .customLong("oauth2-client-auth"), help: ArgumentHelp(
        "How the client proves itself: basic (client_secret_basic, the default), post (client_secret_post), tls (RFC 8705's tls_client_auth: the client identity's certificate, no secret) or jwt (RFC 7523's private_key_jwt: assertions signed with --oauth2-client-key).",
        valueName: "METHOD"
    ))
    var method: String?

    @Option(name: .customLong("oauth2-scope"), help: ArgumentHelp("A scope to ask for. Repeatable.", valueName: "SCOPE"))
    var scopes: [String] = []

    @Option(name: .customLong("oauth2-client-key"), help: ArgumentHelp(
        "With --oauth2-client-auth jwt: the PEM private key (P-256, P-384 or RSA) signing the client assertions.", valueName: "FILE"
    ))
    var assertionKey: String?

    @Option(name: .customLong("oauth2-client-key-id"), help: ArgumentHelp("The key's identifier at the server (the assertions' kid).", valueName: "KID"))
    var assertionKeyID: String?

    @Option(name: .customLong("oauth2-client-key-alg"), help: ArgumentHelp("For an RSA --oauth2-client-key: PS256 (the default) or RS256.", valueName: "ALG"))
    var assertionAlgorithm: String?

    @Flag(name: .customLong("oauth2-dpop"), help: ArgumentHelp(
        "Bind the token to a key by DPoP (RFC 9449): a new P-256 key of this run's own, or --oauth2-dpop-key; every token request and API request carries a proof signed with it."
    ))
    var dpop = false

    @Option(name: .customLong("oauth2-dpop-key"), help: ArgumentHelp(
        "The PEM private key (P-256, P-384 or RSA, PS256) the token is bound to by DPoP, in place of a new one (implies --oauth2-dpop).", valueName: "FILE"
    ))
    var dpopKey: String?

    /// Refuses parts without the token URL or issuer, both of them, one that is not https, a
    /// method that is none, a secret missing, doubled or given for `tls`, and a service account
    /// beside any client option but the scopes.
    func validate() throws {
        if serviceAccount != nil {
            let others: [Any?] = [tokenURL, issuer, clientID, secretEnv, secretFile, method, assertionKey, assertionKeyID, assertionAlgorithm, dpopKey]
            guard others.allSatisfy({ $0 == nil }), !dpop else {
                throw ValidationError("--oauth2-service-account names its account, key and token endpoint: it goes with --oauth2-scope only")
            }
            return
        }
        let endpoints = [("--oauth2-token-url", tokenURL), ("--oauth2-issuer", issuer)].compactMap { option, value in value.map { (option, $0) } }
        guard let (option, endpoint) = endpoints.first else {
            if clientID != nil || secretEnv != nil || secretFile != nil || method != nil || !scopes.isEmpty || assertionKey != nil || dpop || dpopKey != nil {
                throw ValidationError("--oauth2-client-id, --oauth2-client-secret-env/-file, --oauth2-client-auth, --oauth2-client-key, --oauth2-scope and --oauth2-dpop(-key) go with --oauth2-token-url or --oauth2-issuer")
            }
            return
        }
        guard endpoints.count == 1 else { throw ValidationError("--oauth2-token-url or --oauth2-issuer: one of them (the issuer's metadata names the token endpoint)") }
        guard let url = URL(string: endpoint), url.scheme?.lowercased() == "https", url.host?.isEmpty == false else {
            throw ValidationError("\(option) \(endpoint): an https URL (the client's credentials must not travel in cleartext)")
        }
        guard clientID?.isEmpty == false else { throw ValidationError("\(option) needs --oauth2-client-id") }
        let secrets = [secretEnv, secretFile].compactMap { $0 }.count
        let chosen = method?.lowercased() ?? "basic"
        if chosen != "jwt", assertionKey != nil || assertionKeyID != nil || assertionAlgorithm != nil {
            throw ValidationError("--oauth2-client-key, --oauth2-client-key-id and --oauth2-client-key-alg go with --oauth2-client-auth jwt")
        }
        if let assertionAlgorithm, !["PS256", "RS256"].contains(assertionAlgorithm.uppercased()) {
            throw ValidationError("--oauth2-client-key-alg \(assertionAlgorithm): PS256 or RS256 (an EC key's algorithm follows from its curve)")
        }
        switch chosen {
        case "jwt":
            if secrets > 0 { throw ValidationError("--oauth2-client-auth jwt proves the client by its signed assertions: give no secret") }
            if assertionKey == nil { throw ValidationError("--oauth2-client-auth jwt needs --oauth2-client-key FILE") }
        case "tls":
            if secrets > 0 { throw ValidationError("--oauth2-client-auth tls proves the client by its certificate: give no secret") }
        case "basic", "post":
            if secrets != 1 {
                throw ValidationError("--oauth2-client-auth \(method ?? "basic") needs the client's secret from one of --oauth2-client-secret-env VAR or --oauth2-client-secret-file FILE")
            }
        default:
            throw ValidationError("--oauth2-client-auth \(method ?? ""): basic, post, tls or jwt")
        }
    }

    /// The interceptor for requests to `url`'s host, its tokens obtained through `tokenSession`;
    /// `nil` without `--oauth2-token-url`, `--oauth2-issuer` or `--oauth2-service-account`.
    /// With the issuer, the token
    /// endpoint is discovered at the first request, so that a failure to discover it is that
    /// request's (its exit status as any: a rejected certificate 1, unusable metadata 3).
    /// - Throws: a `ValidationError` for a secret, key or key file that cannot be read or used,
    ///   or for `tls` without a client identity (`hasIdentity`).
    func makeInterceptor(for url: URL, tokenSession: SecureSession, hasIdentity: Bool) throws -> (any RequestInterceptor)? {
        if let serviceAccount, let host = url.host {
            do {
                let key = try ServiceAccountKey(contentsOfFile: serviceAccount)
                return try OAuthClientCredentials(serviceAccount: key, scopes: scopes, hosts: [host], tokenSession: tokenSession)
            } catch let error as OAuthError {
                throw ValidationError("\(error)")
            }
        }
        guard let clientID, let host = url.host else { return nil }
        let authentication: OAuthClientAuthentication
        switch method?.lowercased() ?? "basic" {
        case "tls":
            guard hasIdentity else {
                throw ValidationError("--oauth2-client-auth tls needs a client identity (--client-identity, --client-cert/--client-key or -E)")
            }
            authentication = .mutualTLS
        case "jwt":
            let file = assertionKey ?? ""
            let pem = String(decoding: try ArgumentFile.read(file, as: "the client assertion key"), as: UTF8.self)
            let algorithm: ClientAssertionKey.Algorithm = assertionAlgorithm?.uppercased() == "RS256" ? .rs256 : .ps256
            do {
                authentication = .privateKeyJWT(try ClientAssertionKey(pemEncoded: pem, keyID: assertionKeyID, rsaAlgorithm: algorithm))
            } catch {
                throw ValidationError("\(file): \(error)")
            }
        case "post": authentication = .clientSecretPost(secret: try secret())
        default: authentication = .clientSecretBasic(secret: try secret())
        }
        let proof = try proofKey()
        if let issuer, let issuerURL = URL(string: issuer) {
            let scopes = scopes
            return DiscoveringOAuthCredentials {
                try await OAuthClientCredentials(
                    issuer: issuerURL, clientID: clientID, authentication: authentication, scopes: scopes, hosts: [host], tokenSession: tokenSession,
                    proofOfPossession: proof
                )
            }
        }
        guard let tokenURL, let endpoint = URL(string: tokenURL) else { return nil }
        return try OAuthClientCredentials(
            tokenURL: endpoint, clientID: clientID, authentication: authentication, scopes: scopes, hosts: [host], tokenSession: tokenSession,
            proofOfPossession: proof
        )
    }

    /// The DPoP key: read from `--oauth2-dpop-key`, new for `--oauth2-dpop`, else none.
    private func proofKey() throws -> DPoPKey? {
        guard let dpopKey else { return dpop ? DPoPKey.generated() : nil }
        let pem = String(decoding: try ArgumentFile.read(dpopKey, as: "the DPoP key"), as: UTF8.self)
        do {
            return try DPoPKey(pemEncoded: pem)
        } catch {
            throw ValidationError("\(dpopKey): \(error)")
        }
    }

    /// The secret from the environment or the file.
    private func secret() throws -> String {
        let option = "--oauth2-client-secret-env"
        let secret = try SecretArgument.read(environment: secretEnv, file: secretFile, as: "the client secret file", option: option) ?? ""
        guard secret.isEmpty else { return secret }
        // An empty variable is as good as none.
        if let secretEnv { throw ValidationError("the environment variable \(secretEnv) (\(option)) is not set") }
        throw ValidationError("the client secret file \(secretFile ?? "") is empty")
    }
}
