import Foundation
import Logging
import OAuth
import TransportSecurity

/// OAuth 2.0's client-credentials grant (RFC 6749 §4.4) as a ``RequestInterceptor``: every
/// request to the given hosts carries a bearer token (RFC 6750) that this interceptor obtains
/// from the token endpoint, keeps while it is fresh, renews shortly before it expires (one token
/// request however many requests wait) and replaces when a server that accepted it refuses it
/// with a `401` (the request is sent again once with the new one).
/// The way a server-side client calls a bank's, a payment gateway's or a partner's API (Open
/// Banking's mutual-TLS-bound tokens included: `OAuthClientAuthentication.mutualTLS`; or
/// tokens bound to a key by DPoP, RFC 9449: ``proofOfPossession``).
///
/// ```swift
/// let tokens = SecureSession(configuration: .init(tls: .init(trustEvaluator: idpPolicy, clientIdentity: identity)))
/// var configuration = SecureSessionConfiguration(tls: .init(trustEvaluator: apiPolicy, clientIdentity: identity))
/// configuration.features.interceptor = try OAuthClientCredentials(
///     tokenURL: URL(string: "https://auth.bank.example/oauth2/token")!,
///     clientID: "partner-42", authentication: .mutualTLS, scopes: ["payments"],
///     hosts: ["api.bank.example"], tokenSession: tokens)
/// let api = SecureSession(configuration: configuration)
/// ```
///
/// The token endpoint is reached through `tokenSession`, with that session's own trust policy,
/// pins and client identity (a session whose interceptor is this one would ask itself for a
/// token). Requests to other hosts pass unchanged: the token goes only where it is meant to, and
/// only over https (`OAuthError.cleartextRequest`); the session never carries it on a
/// redirect to another origin. Neither the secret nor a token is ever logged or shown in a
/// description.
public struct OAuthClientCredentials: RequestInterceptor, OAuthAuthorizing, CustomStringConvertible {
    /// The token endpoint.
    public let tokenURL: URL
    /// The client's identifier at the authorization server.
    public let clientID: String
    /// How the client proves itself to the token endpoint.
    public let authentication: OAuthClientAuthentication
    /// The scopes asked for (`scope`, space-separated); none: the server's default.
    public let scopes: [String]
    /// The hosts whose requests carry the token.
    public let hosts: [HostPattern]
    /// The key the tokens are bound to by DPoP (RFC 9449), when they are: every token request
    /// and every request carrying a token also carries a proof signed with it.
    public let proofOfPossession: DPoPKey?
    private let tokens: AccessTokenCache
    private let nonces = DPoPNonces()

    /// Creates the interceptor.
    /// - Parameters:
    ///   - tokenURL: The token endpoint (https only).
    ///   - clientID: The client's identifier.
    ///   - authentication: How the client proves itself (`OAuthClientAuthentication`).
    ///   - scopes: The scopes to ask for.
    ///   - parameters: More form fields of the token request (`audience`, RFC 8707's `resource`).
    ///   - hosts: The hosts whose requests get the token, as host patterns (`api.example.com`,
    ///     `*.example.com` one label, `**.example.com` any depth).
    ///   - tokenSession: The session the token requests go through.
    ///   - refreshMargin: How long before its stated expiry a token is replaced (30 s by default).
    ///   - proofOfPossession: A key to bind the tokens to by DPoP (RFC 9449;
    ///     `DPoPKey.generated` for one of this process's own); `nil` for bearer tokens.
    /// - Throws: `OAuthError.insecureTokenEndpoint` for a token URL that is not https, a
    ///   `HostPatternError` for a host pattern that is none.
    public init(
        tokenURL: URL,
        clientID: String,
        authentication: OAuthClientAuthentication,
        scopes: [String] = [],
        parameters: [(name: String, value: String)] = [],
        hosts: [String],
        tokenSession: SecureSession,
        refreshMargin: Duration = .seconds(30),
        proofOfPossession: DPoPKey? = nil
    ) throws {
        guard tokenURL.scheme?.lowercased() == "https" else { throw OAuthError.insecureTokenEndpoint(tokenURL) }
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.authentication = authentication
        self.scopes = scopes
        self.hosts = try hosts.map(HostPattern.init)
        self.proofOfPossession = proofOfPossession
        let logger = tokenSession.configuration.logger
        let nonces = nonces
        tokens = AccessTokenCache(margin: refreshMargin) {
            try await Self.obtainToken(through: tokenSession, proofKey: proofOfPossession, nonces: nonces, logger: logger) {
                // Made for each token request: a client assertion is valid once, for a minute.
                try Self.tokenRequest(tokenURL: tokenURL, clientID: clientID, authentication: authentication, scopes: scopes, parameters: parameters)
            }
        }
    }

    /// The interceptor, its token endpoint found in the authorization server's metadata
    /// (RFC 8414's `/.well-known/oauth-authorization-server`, else OpenID Connect Discovery's
    /// `/.well-known/openid-configuration`), read through `tokenSession`: the metadata must
    /// name `issuer` exactly (metadata of another issuer would take the client's credentials
    /// elsewhere), its token endpoint must be https, and where it lists them, take the client's
    /// authentication and DPoP algorithm. A client using mutual TLS (`tls_client_auth`, or a
    /// token session presenting a client certificate, for certificate-bound tokens) gets the
    /// endpoint's mutual-TLS alias when there is one (RFC 8705 §5).
    /// - Parameters:
    ///   - issuer: The authorization server's issuer identifier (an https URL).
    ///   - clientID: The client's identifier.
    ///   - authentication: How the client proves itself.
    ///   - scopes: The scopes to ask for.
    ///   - parameters: More form fields of the token request.
    ///   - hosts: The hosts whose requests get the token (host patterns).
    ///   - tokenSession: The session the metadata and token requests go through.
    ///   - refreshMargin: How long before its stated expiry a token is replaced.
    ///   - proofOfPossession: A key to bind the tokens to by DPoP; `nil` for bearer tokens.
    /// - Throws: `OAuthError.unusableMetadata` naming what is wrong with the metadata;
    ///   the token session's errors reading it; a `HostPatternError`.
    public init(
        issuer: URL,
        clientID: String,
        authentication: OAuthClientAuthentication,
        scopes: [String] = [],
        parameters: [(name: String, value: String)] = [],
        hosts: [String],
        tokenSession: SecureSession,
        refreshMargin: Duration = .seconds(30),
        proofOfPossession: DPoPKey? = nil
    ) async throws {
        let (metadata, location) = try await AuthorizationServerMetadata.discover(issuer: issuer, through: tokenSession)
        let presentsCertificate = tokenSession.configuration.tls.clientIdentity != nil || tokenSession.configuration.tls.clientIdentityFile != nil
        let tokenURL = try metadata.tokenEndpoint(
            issuer: issuer, location: location, authentication: authentication, presentsCertificate: presentsCertificate,
            proofAlgorithm: proofOfPossession?.algorithm.rawValue
        )
        try self.init(
            tokenURL: tokenURL, clientID: clientID, authentication: authentication, scopes: scopes, parameters: parameters, hosts: hosts,
            tokenSession: tokenSession, refreshMargin: refreshMargin, proofOfPossession: proofOfPossession
        )
    }

    /// The interceptor for a service account (Google Cloud's): tokens by the JWT bearer grant
    /// (`OAuthClientAuthentication.jwtBearerGrant`) from the key's token endpoint,
    /// the account its client.
    /// - Parameters:
    ///   - serviceAccount: The account's key.
    ///   - scopes: The scopes to ask for (`https://www.googleapis.com/auth/cloud-platform`, …).
    ///   - subject: The user the account acts for (domain-wide delegation), when it does.
    ///   - hosts: The hosts whose requests get the token (host patterns).
    ///   - tokenSession: The session the token requests go through.
    ///   - refreshMargin: How long before its stated expiry a token is replaced.
    /// - Throws: A `HostPatternError` for a host pattern that is none.
    public init(
        serviceAccount: ServiceAccountKey,
        scopes: [String],
        subject: String? = nil,
        hosts: [String],
        tokenSession: SecureSession,
        refreshMargin: Duration = .seconds(30)
    ) throws {
        try self.init(
            tokenURL: serviceAccount.tokenURL, clientID: serviceAccount.clientEmail, authentication: .jwtBearerGrant(serviceAccount, subject: subject),
            scopes: scopes, hosts: hosts, tokenSession: tokenSession, refreshMargin: refreshMargin
        )
    }

    /// `OAuthClientCredentials(client-id, client_secret_basic, token URL, hosts)`: no secret.
    public var description: String {
        let bound = proofOfPossession.map { ", DPoP \($0.algorithm.rawValue)" } ?? ""
        return "OAuthClientCredentials(\(clientID), \(authentication), \(tokenURL.redacted), hosts: \(hosts.map(\.description).joined(separator: " "))\(bound))"
    }

    /// `request` with the current token in its `Authorization` field (replacing one of its
    /// own), when it goes to one of ``hosts``; else as it is. With ``proofOfPossession``, the
    /// token is a `DPoP` one and the request also carries its proof in the `DPoP` field, made
    /// for its method and URL (with the server's latest nonce).
    /// - Throws: `OAuthError.cleartextRequest` for such a request over http; the token
    ///   request's failure (`OAuthError`, or the token session's ``SecureSessionError``).
    public func adapt(_ request: SecureRequest, attempt: RequestAttempt) async throws -> SecureRequest {
        guard covers(request.url) else { return request }
        let given = try await authorization(method: request.method.rawValue, url: request.url)
        var adapted = request
        adapted.headers.removeAll { $0.name.equalsIgnoringASCIICase("Authorization") || $0.name.equalsIgnoringASCIICase(DPoPProof.field) }
        adapted.headers.append((name: "Authorization", value: given.authorization))
        if let proof = given.proof { adapted.headers.append((name: DPoPProof.field, value: proof)) }
        return adapted
    }

    /// What authorizes a request of `method` to `url` now, for requests that are not
    /// ``SecureRequest``s (a gRPC call is a `POST` to `https://host:port/package.Service/Method`):
    /// `Bearer` and the token, or with ``proofOfPossession`` `DPoP` and the token with a proof
    /// made for `method` and `url` (carrying the latest nonce `url`'s server gave:
    /// ``serverGaveNonce(_:from:)``). The token is fresh for at least the refresh margin, the
    /// current one or a new one from the token endpoint (one token request however many callers
    /// wait). Tell the outcome to ``serverAccepted(authorization:)`` or
    /// ``serverRefused(authorization:)``. Unlike ``adapt(_:attempt:)``, any host is served: the
    /// caller chooses where the token goes.
    /// - Throws: `OAuthError.cleartextRequest` for a URL that is not https; the token
    ///   request's failure (`OAuthError`, or the token session's ``SecureSessionError``).
    public func authorization(method: String, url: URL) async throws -> OAuthRequestAuthorization {
        guard url.scheme?.lowercased() == "https" else { throw OAuthError.cleartextRequest(url) }
        let token = try await tokens.token().value
        guard let key = proofOfPossession else {
            return OAuthRequestAuthorization(authorization: Self.bearerPrefix + token, proof: nil)
        }
        let proof = try DPoPProof.make(method: method, url: url, key: key, accessToken: token, nonce: nonces.nonce(for: url))
        return OAuthRequestAuthorization(authorization: Self.dpopPrefix + token, proof: proof)
    }

    /// Notes the nonce for DPoP proofs (RFC 9449 §9, its `DPoP-Nonce` field) a response from
    /// `url`'s server gave, for the proofs made from now on for that origin; whether it is new.
    /// ``adapt(_:attempt:)``'s requests note theirs themselves.
    @discardableResult
    public func serverGaveNonce(_ nonce: String?, from url: URL) -> Bool {
        nonces.note(nonce, from: url)
    }

    /// After a `401` to a request that carried a token: sent again at once with a new token,
    /// unless servers never accepted the token it carried (a new one would be refused too).
    /// With DPoP, a `401` naming `use_dpop_nonce` with a nonce not used yet sends the request
    /// again with a proof carrying it (the token was not refused), after the first or second
    /// attempt only: a server that asks for a new nonce every time is not followed for ever.
    public func retry(_ request: SecureRequest, after outcome: AttemptOutcome, attempt: RequestAttempt) async -> RetryDecision {
        guard covers(request.url), let status = outcome.statusCode, let authorization = request.header("Authorization") else {
            return .doNotRetry
        }
        if proofOfPossession != nil, case .response(let head) = outcome {
            let newNonce = nonces.note(head.header(DPoPProof.nonceField), from: request.url)
            if status == 401, DPoPProof.demandsNonce(head.headers.lazy.filter { $0.name.equalsIgnoringASCIICase("WWW-Authenticate") }.map(\.value)) {
                return newNonce && attempt.number <= 2 ? .retry(after: .zero) : .doNotRetry
            }
        }
        guard status == 401 else {
            await serverAccepted(authorization: authorization)
            return .doNotRetry
        }
        return await serverRefused(authorization: authorization) ? .retry(after: .zero) : .doNotRetry
    }

    /// The credential for a request now: `Bearer` and a token fresh for at least the refresh
    /// margin, the current one or a new one from the token endpoint (one token request however
    /// many callers wait). For requests that are not ``SecureRequest``s, such as gRPC calls'
    /// `authorization` metadata; tell the outcome to ``serverAccepted(authorization:)`` or
    /// ``serverRefused(authorization:)``.
    /// The value carries the token: like the token itself, never log it.
    /// - Throws: `OAuthError.proofRequiredPerRequest` with ``proofOfPossession`` (a DPoP
    ///   token goes only with a proof for its request: ``authorization(method:url:)``); the
    ///   token request's failure
    ///   (`OAuthError`, or the token session's ``SecureSessionError``).
    public func authorizationValue() async throws -> String {
        guard proofOfPossession == nil else { throw OAuthError.proofRequiredPerRequest }
        return Self.bearerPrefix + (try await tokens.token()).value
    }

    /// Notes that a server accepted a request that carried `authorization` (a value of
    /// ``authorizationValue()``): a later refusal of the same token means it was revoked.
    public func serverAccepted(authorization: String) async {
        guard let token = Self.token(in: authorization) else { return }
        await tokens.accepted(token)
    }

    /// Whether `error` says the token request was cancelled: a `CancellationError`, or the
    /// token session's ``SecureSessionError/cancelled``.
    public func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || error.sessionFailureCode == .cancelled
    }

    /// Notes that a server refused a request that carried `authorization` (HTTP `401`, gRPC
    /// `UNAUTHENTICATED`), and answers whether sending it again could succeed: yes when the
    /// token is no longer the current one, or servers accepted it before (it is forgotten, and
    /// the next ``authorizationValue()`` asks for a new one); no when servers never accepted it
    /// (a new token would be refused too: a client that lost its rights asks for one new token,
    /// not one per request).
    @discardableResult
    public func serverRefused(authorization: String) async -> Bool {
        guard let token = Self.token(in: authorization) else { return false }
        return await tokens.refused(token)
    }

    private static let bearerPrefix = "Bearer "
    private static let dpopPrefix = "DPoP "

    /// The token of a `Bearer` or `DPoP` credential; `nil` for another one.
    private static func token(in authorization: String) -> String? {
        for prefix in [bearerPrefix, dpopPrefix] where authorization.hasPrefix(prefix) {
            return String(authorization.dropFirst(prefix.count))
        }
        return nil
    }

    private func covers(_ url: URL) -> Bool {
        guard let host = url.host else { return false }
        let server = ServerHost(host)
        return hosts.contains { $0.matches(server) }
    }

    /// The token request (RFC 6749 §4.4.2), with the client's authentication (§2.3.1, RFC 7523
    /// §2.2, RFC 8705 §2).
    private static func tokenRequest(
        tokenURL: URL,
        clientID: String,
        authentication: OAuthClientAuthentication,
        scopes: [String],
        parameters: [(name: String, value: String)]
    ) throws -> SecureRequest {
        var fields: [(name: String, value: String)] = [("grant_type", "client_credentials")]
        if !scopes.isEmpty { fields.append(("scope", scopes.joined(separator: " "))) }
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        switch authentication {
        case .jwtBearerGrant(let account, let subject):
            // The grant alone, as Google's endpoint takes it: the scopes are its claim.
            fields = [("grant_type", JWTBearerGrant.type), ("assertion", try JWTBearerGrant.make(account: account, subject: subject, scopes: scopes, audience: tokenURL))]
        case .clientSecretBasic(let secret):
            let pair = FormURLEncoding.encode(clientID) + ":" + FormURLEncoding.encode(secret)
            headers.append(("Authorization", "Basic " + Data(pair.utf8).base64EncodedString()))
        case .clientSecretPost(let secret):
            fields.append(("client_id", clientID))
            fields.append(("client_secret", secret))
        case .mutualTLS:
            fields.append(("client_id", clientID))
        case .privateKeyJWT(let key):
            fields.append(("client_id", clientID))
            fields.append(("client_assertion_type", ClientAssertion.type))
            fields.append(("client_assertion", try ClientAssertion.make(clientID: clientID, audience: tokenURL, key: key)))
        }
        var request = SecureRequest.form(url: tokenURL, fields: fields + parameters)
        request.headers.append(contentsOf: headers)
        return request.toAuthorizationServer
    }

    /// A token from the endpoint, or why there is none: the request `makeRequest` makes, with a
    /// DPoP proof when `proofKey` is given (sent once more, with the nonce, when the endpoint
    /// answers `use_dpop_nonce` with a new one).
    private static func obtainToken(
        through session: SecureSession,
        proofKey: DPoPKey?,
        nonces: DPoPNonces,
        logger: Logger,
        makeRequest: () throws -> SecureRequest
    ) async throws -> AccessToken {
        var nonceRetried = false
        while true {
            var request = try makeRequest()
            if let proofKey {
                let proof = try DPoPProof.make(method: request.method.rawValue, url: request.url, key: proofKey, nonce: nonces.nonce(for: request.url))
                request.headers.append((name: DPoPProof.field, value: proof))
            }
            let asked = ContinuousClock.now
            let response = try await session.send(request)
            let newNonce = proofKey != nil && nonces.note(response.header(DPoPProof.nonceField), from: request.url)
            if (200..<300).contains(response.statusCode) {
                let token = try AccessToken.parse(response.body, obtained: asked, type: proofKey == nil ? "Bearer" : "DPoP")
                logger.debug("access token obtained", metadata: ["url": "\(request.url.redacted)", "token": "\(token)"])
                return token
            }
            let refusal = try? JSONDecoder().decode(TokenRefusal.self, from: response.body)
            if refusal?.error == DPoPProof.nonceError, newNonce, !nonceRetried {
                nonceRetried = true
                continue
            }
            logger.debug("token request refused", metadata: [
                "url": "\(request.url.redacted)", "status": "\(response.statusCode)", "error": "\(refusal?.error ?? "none")",
            ])
            throw OAuthError.tokenRequestRefused(status: response.statusCode, error: refusal?.error, description: refusal?.errorDescription)
        }
    }

    /// An error response of the token endpoint (RFC 6749 §5.2).
    private struct TokenRefusal: Decodable {
        let error: String?
        let errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }
}
