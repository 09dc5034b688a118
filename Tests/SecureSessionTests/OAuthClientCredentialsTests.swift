import Crypto
import CryptoExtras
import Foundation
import OAuth
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

/// OAuth 2.0's client-credentials grant as an interceptor, against the test server's token
/// endpoint and API (``OAuthServer``) on 127.0.0.1.
@Suite("OAuth client credentials")
struct OAuthClientCredentialsTests {
    let lab = try! ClientCertificateLab()

    func api(
        _ server: HTTPTestServer,
        _ authentication: OAuthClientAuthentication = .clientSecretBasic(secret: "s3cret"),
        scopes: [String] = ["read", "write"],
        tokenQuery: String = "",
        tokenSession: SecureSession? = nil,
        refreshMargin: Duration = .seconds(30)
    ) throws -> SecureSession {
        let interceptor = try OAuthClientCredentials(
            tokenURL: server.url("/oauth/token" + tokenQuery), clientID: "partner", authentication: authentication, scopes: scopes,
            hosts: ["127.0.0.1"], tokenSession: tokenSession ?? lab.lab.session(), refreshMargin: refreshMargin
        )
        return lab.lab.session { $0.features.interceptor = interceptor }
    }

    @Test("client_secret_basic: one token for many requests, twenty at once included; the form and the Basic field as RFC 6749 writes them; the token goes to its hosts only")
    func secretBasic() async throws {
        let server = try await HTTPTestServer(chain: lab.lab.loopbackChain())
        let session = try api(server)
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await session.get(server.url("/oauth/api")).text } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers == Array(repeating: "hello with token-1", count: 20))
        #expect(server.oauth.issuedCount == 1, "one token request however many requests waited")
        let request = try #require(server.oauth.tokenRequests.first)
        #expect(request.headers.first { $0.0.lowercased() == "authorization" }?.1 == "Basic " + Data("partner:s3cret".utf8).base64EncodedString())
        #expect(request.headers.first { $0.0.lowercased() == "content-type" }?.1 == "application/x-www-form-urlencoded")
        #expect(OAuthServer.formFields(request.body) == ["grant_type": "client_credentials", "scope": "read write"])

        let elsewhere = try await session.get(server.url("/headers", host: "localhost")).text
        #expect(!elsewhere.contains("token-1"), "another host gets no token")
        let redirected = try await session.get(server.url("/redirect?to=" + server.url("/headers", host: "localhost").absoluteString))
        #expect(!redirected.text.contains("token-1"), "nor does a redirect to another origin")
        await #expect(throws: OAuthError.self, "never over http") {
            try await session.get(URL(string: "http://127.0.0.1:\(server.port)/oauth/api")!)
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("client_secret_post: the client's ID and secret in the form; no Authorization field")
    func secretPost() async throws {
        let server = try await HTTPTestServer(chain: lab.lab.loopbackChain())
        let session = try api(server, .clientSecretPost(secret: "s3cret"), scopes: [])
        #expect(try await session.get(server.url("/oauth/api")).text == "hello with token-1")
        let request = try #require(server.oauth.tokenRequests.first)
        #expect(!request.headers.contains { $0.0.lowercased() == "authorization" })
        #expect(OAuthServer.formFields(request.body) == ["grant_type": "client_credentials", "client_id": "partner", "client_secret": "s3cret"])
        await session.shutdown()
        await server.stop()
    }

    @Test("tls_client_auth (RFC 8705): the token session's client certificate proves the client; without it the endpoint refuses")
    func mutualTLS() async throws {
        let server = try await HTTPTestServer(chain: lab.lab.loopbackChain(), clientVerifier: .clients(of: lab.clientCA, at: lab.lab.pki.now))
        let partner = try lab.lab.pki.issue(.client("partner"), by: lab.clientCA)
        let identity = try ClientIdentity(certificateChainPEM: partner.pemString, privateKeyPEM: partner.privateKeyPEM)
        let tokenSession = lab.lab.session { $0.tls.clientIdentity = identity }
        let interceptor = try OAuthClientCredentials(
            tokenURL: server.url("/oauth/token"), clientID: "partner", authentication: .mutualTLS, hosts: ["127.0.0.1"], tokenSession: tokenSession
        )
        let session = lab.lab.session {
            $0.features.interceptor = interceptor
            $0.tls.clientIdentity = identity
        }
        #expect(try await session.get(server.url("/oauth/api")).text == "hello with token-1")
        #expect(OAuthServer.formFields(try #require(server.oauth.tokenRequests.first).body) == ["grant_type": "client_credentials", "client_id": "partner"])

        let alice = try ClientIdentity(certificateChainPEM: lab.alice.pemString, privateKeyPEM: lab.alice.privateKeyPEM)
        let wrong = try OAuthClientCredentials(
            tokenURL: server.url("/oauth/token"), clientID: "partner", authentication: .mutualTLS, hosts: ["127.0.0.1"],
            tokenSession: lab.lab.session { $0.tls.clientIdentity = alice }
        )
        let refused = lab.lab.session {
            $0.features.interceptor = wrong
            $0.tls.clientIdentity = alice
        }
        do {
            _ = try await refused.get(server.url("/oauth/api"))
            Issue.record("a token for another client's certificate")
        } catch let error as OAuthError {
            guard case .tokenRequestRefused(401, "invalid_client", _) = error else { throw error }
            #expect(error.description == "the token endpoint refused to issue a token: HTTP 401 (invalid_client: unknown client or wrong secret)")
        }
        await session.shutdown()
        await refused.shutdown()
        await tokenSession.shutdown()
        await server.stop()
    }

    @Test("discovery (RFC 8414): the token endpoint from the issuer's metadata (a tenant's, the root's, OpenID Connect's location as the fallback), its mutual-TLS alias for tls_client_auth (RFC 8705 §5); refused with the reason: another issuer's metadata, an http token endpoint, an authentication or a DPoP algorithm the server does not take, no metadata, an http issuer, metadata moved to another origin")
    func discovery() async throws {
        let server = try await HTTPTestServer(chain: lab.lab.loopbackChain())
        let tokenSession = lab.lab.session()
        let origin = "https://127.0.0.1:\(server.port)"
        func discover(
            _ issuer: String,
            _ authentication: OAuthClientAuthentication = .clientSecretBasic(secret: "s3cret"),
            proof: DPoPKey? = nil,
            through session: SecureSession? = nil
        ) async throws -> OAuthClientCredentials {
            try await OAuthClientCredentials(
                issuer: URL(string: issuer)!, clientID: "partner", authentication: authentication, hosts: ["127.0.0.1"],
                tokenSession: session ?? tokenSession, proofOfPossession: proof
            )
        }
        func refusal(_ issuer: String, _ authentication: OAuthClientAuthentication = .clientSecretBasic(secret: "s3cret"), proof: DPoPKey? = nil) async -> String {
            do {
                return "accepted: \(try await discover(issuer, authentication, proof: proof).tokenURL)"
            } catch {
                return "\(error)"
            }
        }
        let tenant = try await discover(origin + "/tenant")
        #expect(tenant.tokenURL.absoluteString == origin + "/oauth/token")
        let api = lab.lab.session { $0.features.interceptor = tenant }
        #expect(try await api.get(server.url("/oauth/api")).text == "hello with token-1")
        #expect(server.oauth.tokenRequestQueries.last?["via"] == nil)
        #expect(try await discover(origin).tokenURL.absoluteString == origin + "/oauth/token")
        #expect(try await discover(origin + "/oidc").tokenURL.absoluteString == origin + "/oauth/token")

        #expect(await refusal(origin + "/mixup") == "the authorization server's metadata at \(origin)/.well-known/oauth-authorization-server/mixup cannot be used: it is the metadata of the issuer '\(origin)/elsewhere', not of \(origin)/mixup (RFC 8414 §3.3)")
        #expect(await refusal(origin + "/cleartext").hasSuffix("its token endpoint http://127.0.0.1:\(server.port)/oauth/token is not an https URL"))
        #expect(await refusal(origin + "/secret-only", .clientSecretPost(secret: "s3cret")).hasSuffix("the server takes client_secret_basic at its token endpoint, not client_secret_post"))
        let p384 = try DPoPKey(pemEncoded: P384.Signing.PrivateKey().pemRepresentation)
        #expect(await refusal(origin + "/tenant", proof: p384).hasSuffix("the server takes DPoP proofs signed with ES256, PS256, not ES384"))
        #expect(await refusal(origin + "/missing").hasSuffix("cannot be used: no metadata found (/.well-known/oauth-authorization-server/missing: HTTP 404, /missing/.well-known/openid-configuration: HTTP 404)"))
        #expect(await refusal("http://127.0.0.1:\(server.port)/tenant").hasSuffix("cannot be used: the issuer is not an https URL"))
        // Metadata that moved to another origin is not followed there: the redirect is the error.
        let moved = "https://localhost:\(server.port)/.well-known/oauth-authorization-server"
        #expect(await refusal(origin + "/moved") == "refused the 301 redirect from \(origin)/.well-known/oauth-authorization-server/moved to \(moved): an exchange with the authorization server (a token request, its metadata) follows no redirect to another origin, which would be handed the client's credentials")
        await api.shutdown()
        await server.stop()

        // Mutual TLS: the endpoint's alias, reached with the token session's certificate.
        let mutual = try await HTTPTestServer(chain: lab.lab.loopbackChain(), clientVerifier: .clients(of: lab.clientCA, at: lab.lab.pki.now))
        let partner = try lab.lab.pki.issue(.client("partner"), by: lab.clientCA)
        let identity = try ClientIdentity(certificateChainPEM: partner.pemString, privateKeyPEM: partner.privateKeyPEM)
        let mutualOrigin = "https://127.0.0.1:\(mutual.port)"
        let bound = try await discover(mutualOrigin + "/tenant", .mutualTLS, through: lab.lab.session { $0.tls.clientIdentity = identity })
        #expect(bound.tokenURL.absoluteString == mutualOrigin + "/oauth/token?via=mtls")
        let boundAPI = lab.lab.session {
            $0.features.interceptor = bound
            $0.tls.clientIdentity = identity
        }
        #expect(try await boundAPI.get(mutual.url("/oauth/api")).text == "hello with token-1")
        #expect(mutual.oauth.tokenRequestQueries.last?["via"] == "mtls")
        await boundAPI.shutdown()
        await tokenSession.shutdown()
        await mutual.stop()
    }

    @Test("a token the API refuses is replaced once and the request sent again; one refused right after it was obtained is not, and the 401 reaches the caller")
    func refusedToken() async throws {
        let server = try await HTTPTestServer(chain: lab.lab.loopbackChain())
        let session = try api(server)
        #expect(try await session.get(server.url("/oauth/api")).text == "hello with token-1")
        server.oauth.revokeAll()
        let renewed = try await session.get(server.url("/oauth/api"))
        #expect(renewed.text == "hello with token-2" && renewed.attempts == 2)

        server.oauth.setAcceptsTokens(false)
        do {
            _ = try await session.get(server.url("/oauth/api"))
            Issue.record("an API refusing every token answered")
        } catch let sessionError as SecureSessionError where sessionError.code == .unacceptableStatus {
            if case .unacceptableStatus(let code, _) = sessionError.reason {
                #expect(code == 401)
            }
        }
        #expect(server.oauth.issuedCount == 3, "one new token for the refused one, and no more")
        await session.shutdown()
        await server.stop()
    }

    @Test("expiry: a token within the margin of its expires_in is replaced before use; one without expires_in is kept until refused")
    func expiry() async throws {
        let server = try await HTTPTestServer(chain: lab.lab.loopbackChain())
        server.oauth.setLifetime(20)
        let session = try api(server, refreshMargin: .seconds(30))
        #expect(try await session.get(server.url("/oauth/api")).text == "hello with token-1")
        #expect(try await session.get(server.url("/oauth/api")).text == "hello with token-2", "20 s left is within the 30 s margin")
        server.oauth.setLifetime(nil)
        #expect(try await session.get(server.url("/oauth/api")).text == "hello with token-3")
        #expect(try await session.get(server.url("/oauth/api")).text == "hello with token-3")
        await session.shutdown()
        await server.stop()
    }

    @Test("clear errors: a wrong secret, a scope not granted, answers without a usable token, an http token endpoint, a pinned token endpoint that does not match; no secret in a description")
    func errors() async throws {
        let server = try await HTTPTestServer(chain: lab.lab.loopbackChain())
        func failure(_ session: SecureSession) async -> (any Error)? {
            do {
                _ = try await session.get(server.url("/oauth/api"))
                return nil
            } catch {
                return error
            }
        }
        let wrongSecret = await failure(try api(server, .clientSecretBasic(secret: "guess")))
        #expect("\(wrongSecret.map { "\($0)" } ?? "")".contains("HTTP 401 (invalid_client"))
        let scope = await failure(try api(server, scopes: ["forbidden"]))
        #expect("\(scope.map { "\($0)" } ?? "")" == "the token endpoint refused to issue a token: HTTP 400 (invalid_scope: the scope forbidden is not granted)")
        for (broken, reason) in [
            ("json", "not a JSON object"), ("type", "token_type is 'mac', not Bearer"), ("characters", "characters a bearer token cannot have"),
            ("lifetime", "expires_in is not a number of seconds"),
        ] {
            let error = await failure(try api(server, tokenQuery: "?broken=\(broken)"))
            guard case .invalidTokenResponse = error as? OAuthError else {
                Issue.record("\(broken): \(String(describing: error))")
                continue
            }
            #expect("\(error!)".contains(reason), "\(broken)")
        }
        #expect(throws: OAuthError.self) {
            try OAuthClientCredentials(
                tokenURL: URL(string: "http://127.0.0.1/token")!, clientID: "partner", authentication: .clientSecretPost(secret: "s3cret"),
                hosts: ["127.0.0.1"], tokenSession: lab.lab.session()
            )
        }
        #expect(throws: HostPatternError.self) {
            try OAuthClientCredentials(
                tokenURL: server.url("/oauth/token"), clientID: "partner", authentication: .mutualTLS, hosts: ["*"], tokenSession: lab.lab.session()
            )
        }
        let pinned = lab.lab.session(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.lab.rogueRoot.der]))
        let mismatch = await failure(try api(server, tokenSession: pinned))
        guard case .trustRejected(let decision)? = mismatch?.sessionFailureReason else {
            Issue.record("\(String(describing: mismatch))")
            return
        }
        #expect(decision.pinMismatch != nil)
        #expect(server.oauth.issuedCount == 0)

        let interceptor = try api(server, .clientSecretPost(secret: "s3cret")).configuration.features.interceptor
        #expect(!"\(String(describing: interceptor))".contains("s3cret"))
        #expect("\(OAuthClientAuthentication.clientSecretBasic(secret: "s3cret"))" == "client_secret_basic")
        await server.stop()
    }
}

/// Against oauthlib (Debian's python3-oauthlib, `Tests/Fixtures/oauth-server`): an independent
/// token endpoint and resource server.
@Suite("OAuth client credentials with oauthlib")
struct OAuthLibInteropTests {
    let lab = try! TrustLab()

    /// A session whose requests to 127.0.0.1 carry tokens from `server`'s oauthlib endpoint.
    func api(
        _ server: PythonTLSServer,
        _ authentication: OAuthClientAuthentication,
        scopes: [String] = [],
        tokenSession: SecureSession,
        proof: DPoPKey? = nil
    ) throws -> SecureSession {
        let interceptor = try OAuthClientCredentials(
            tokenURL: server.url("/token"), clientID: "partner", authentication: authentication, scopes: scopes, hosts: ["127.0.0.1"],
            tokenSession: tokenSession, proofOfPossession: proof
        )
        return lab.session { $0.features.interceptor = interceptor }
    }

    @Test("client_secret_basic (a secret with ':', '+', '/' and '&', form-encoded before Basic) and client_secret_post obtain tokens oauthlib accepts; a revoked token is replaced; a wrong secret is oauthlib's invalid_client; a scope it does not know its invalid_scope")
    func oauthlib() async throws {
        let server = try PythonTLSServer(fixture: "oauth-server", chain: lab.loopbackChain())
        defer { server.stop() }
        let tokenSession = lab.session()
        for authentication in [OAuthClientAuthentication.clientSecretBasic(secret: "s3cret:+/&"), .clientSecretPost(secret: "s3cret:+/&")] {
            let session = try api(server, authentication, scopes: ["read", "write"], tokenSession: tokenSession)
            #expect(try await session.get(server.url("/api")).text == "hello", "\(authentication)")
            #expect(try await session.get(server.url("/api")).attempts == 1)
            _ = try await tokenSession.post(server.url("/revoke-all"), body: nil)
            let renewed = try await session.get(server.url("/api"))
            #expect(renewed.text == "hello" && renewed.attempts == 2, "\(authentication)")
            await session.shutdown()
        }
        do {
            _ = try await api(server, .clientSecretBasic(secret: "s3cret"), scopes: ["read", "write"], tokenSession: tokenSession).get(server.url("/api"))
            Issue.record("a wrong secret got a token")
        } catch OAuthError.tokenRequestRefused(let status, let error, _) {
            #expect(status == 401 && error == "invalid_client")
        }
        do {
            _ = try await api(server, .clientSecretPost(secret: "s3cret:+/&"), scopes: ["admin"], tokenSession: tokenSession).get(server.url("/api"))
            Issue.record("an unknown scope was granted")
        } catch OAuthError.tokenRequestRefused(let status, let error, _) {
            #expect(status == 400 && error == "invalid_scope")
        }
        await tokenSession.shutdown()
    }

    @Test("private_key_jwt (RFC 7523): client assertions signed with P-256, P-384 and RSA (PS256, RS256) keys, verified by PyJWT with the registered public key; another key's assertion is invalid_client")
    func privateKeyJWT() async throws {
        let server = try PythonTLSServer(fixture: "oauth-server", chain: lab.loopbackChain())
        defer { server.stop() }
        let tokenSession = lab.session()
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let p256 = P256.Signing.PrivateKey()
        let p384 = P384.Signing.PrivateKey()
        let keys: [(privateKey: String, publicKey: String, algorithm: ClientAssertionKey.Algorithm)] = [
            (p256.pemRepresentation, p256.publicKey.pemRepresentation, .es256),
            (p384.pemRepresentation, p384.publicKey.pemRepresentation, .es384),
            (rsa.pemRepresentation, rsa.publicKey.pemRepresentation, .ps256),
            (rsa.pemRepresentation, rsa.publicKey.pemRepresentation, .rs256),
        ]
        for (privateKey, publicKey, algorithm) in keys {
            _ = try await tokenSession.post(server.url("/register-key"), body: Data(publicKey.utf8))
            let key = try ClientAssertionKey(pemEncoded: privateKey, keyID: "k1", rsaAlgorithm: algorithm)
            #expect(key.algorithm == algorithm)
            let session = try api(server, .privateKeyJWT(key), tokenSession: tokenSession)
            #expect(try await session.get(server.url("/api")).text == "hello", "\(algorithm)")
            _ = try await tokenSession.post(server.url("/revoke-all"), body: nil)
            #expect(try await session.get(server.url("/api")).attempts == 2, "a second assertion, with a jti of its own: \(algorithm)")
            await session.shutdown()
        }
        let stranger = try api(server, .privateKeyJWT(try ClientAssertionKey(pemEncoded: P256.Signing.PrivateKey().pemRepresentation)), tokenSession: tokenSession)
        do {
            _ = try await stranger.get(server.url("/api"))
            Issue.record("an assertion signed by another key got a token")
        } catch OAuthError.tokenRequestRefused(let status, let error, _) {
            #expect(status == 401 && error == "invalid_client")
        }
        await stranger.shutdown()
        await tokenSession.shutdown()
    }

    @Test("DPoP (RFC 9449): tokens bound to P-256, P-384 and RSA (PS256) keys, every proof verified by PyJWT (typ, jwk, htm, htu, iat, jti, ath), the key's thumbprint the one the server bound; a revoked token replaced with a new proof; the server's nonce demanded at the token endpoint and, once it changes, at the API, each answered by one more try")
    func dpop() async throws {
        let server = try PythonTLSServer(fixture: "oauth-server", chain: lab.loopbackChain())
        defer { server.stop() }
        let tokenSession = lab.session()
        let keys = [
            DPoPKey.generated(),
            try DPoPKey(pemEncoded: P384.Signing.PrivateKey().pemRepresentation),
            try DPoPKey(pemEncoded: _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation),
        ]
        #expect(keys.map(\.algorithm) == [.es256, .es384, .ps256])
        for key in keys {
            let session = try api(server, .clientSecretBasic(secret: "s3cret:+/&"), tokenSession: tokenSession, proof: key)
            #expect(try await session.get(server.url("/api")).text == "hello " + key.thumbprint, "\(key)")
            _ = try await tokenSession.post(server.url("/revoke-all"), body: nil)
            let renewed = try await session.get(server.url("/api"))
            #expect(renewed.text == "hello " + key.thumbprint && renewed.attempts == 2, "\(key)")
            await session.shutdown()
        }

        struct Demands: Decodable, Equatable {
            let token_nonce_demands: Int
            let api_nonce_demands: Int
            var rotating_demands = 0
        }
        _ = try await tokenSession.post(server.url("/require-dpop-nonce"), body: Data("n-1".utf8))
        let key = DPoPKey.generated()
        let session = try api(server, .clientSecretPost(secret: "s3cret:+/&"), tokenSession: tokenSession, proof: key)
        let first = try await session.get(server.url("/api"))
        #expect(first.text == "hello " + key.thumbprint && first.attempts == 1, "the token endpoint's nonce serves its origin's API too")
        _ = try await tokenSession.post(server.url("/require-dpop-nonce"), body: Data("n-2".utf8))
        let afterChange = try await session.get(server.url("/api"))
        #expect(afterChange.text == "hello " + key.thumbprint && afterChange.attempts == 2)
        #expect(try await session.get(server.url("/api")).attempts == 1)
        let demands = try await tokenSession.get(server.url("/stats")).decode(Demands.self)
        #expect(demands == Demands(token_nonce_demands: 1, api_nonce_demands: 1))
        _ = try await tokenSession.post(server.url("/require-dpop-nonce"), body: nil)
        // A server asking for a new nonce every time is followed twice, not for ever.
        var rotating = SecureRequest(url: server.url("/api-rotating"))
        rotating.validation = ResponseValidation.none
        let givenUp = try await session.send(rotating)
        #expect(givenUp.statusCode == 401 && givenUp.attempts == 3)
        #expect(try await tokenSession.get(server.url("/stats")).decode(Demands.self).rotating_demands == 3)
        await session.shutdown()
        await tokenSession.shutdown()
    }

    @Test("a service account (Google's JWT bearer grant, RFC 7523 §2.1): grants signed RS256 with the key file's kid, verified by PyJWT (issuer the account, audience the token endpoint, the scopes and sub as claims, an hour); a revoked token replaced by a new grant; another key's grant is invalid_grant")
    func serviceAccount() async throws {
        let server = try PythonTLSServer(fixture: "oauth-server", chain: lab.loopbackChain())
        defer { server.stop() }
        let tokenSession = lab.session()
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        _ = try await tokenSession.post(server.url("/register-key"), body: Data(rsa.publicKey.pemRepresentation.utf8))
        let account = "tsec-test@tsec-project.iam.gserviceaccount.com"
        func keyFile(_ privateKey: String) throws -> ServiceAccountKey {
            try ServiceAccountKey(json: JSONSerialization.data(withJSONObject: [
                "type": "service_account", "project_id": "tsec-project", "private_key_id": "k-1", "private_key": privateKey,
                "client_email": account, "client_id": "1234", "token_uri": server.url("/token").absoluteString,
            ]))
        }
        let key = try keyFile(rsa.pkcs8PEMRepresentation)
        #expect("\(key)" == "ServiceAccountKey(\(account), kid k-1)")
        let scopes = ["https://www.googleapis.com/auth/cloud-platform", "read"]
        let credentials = try OAuthClientCredentials(serviceAccount: key, scopes: scopes, subject: "admin@example.com", hosts: ["127.0.0.1"], tokenSession: tokenSession)
        let session = lab.session { $0.features.interceptor = credentials }
        #expect(try await session.get(server.url("/api")).text == "hello")
        let grant = try #require(try JSONSerialization.jsonObject(with: try await tokenSession.get(server.url("/last-grant")).body) as? [String: Any])
        #expect(grant["iss"] as? String == account && grant["aud"] as? String == server.url("/token").absoluteString)
        #expect(grant["scope"] as? String == scopes.joined(separator: " ") && grant["sub"] as? String == "admin@example.com")
        #expect((grant["exp"] as? Int).map { $0 - (grant["iat"] as? Int ?? 0) } == 3600)
        _ = try await tokenSession.post(server.url("/revoke-all"), body: nil)
        #expect(try await session.get(server.url("/api")).attempts == 2)

        let stranger = lab.session {
            $0.features.interceptor = try? OAuthClientCredentials(
                serviceAccount: keyFile(_RSA.Signing.PrivateKey(keySize: .bits2048).pkcs8PEMRepresentation), scopes: scopes, hosts: ["127.0.0.1"],
                tokenSession: tokenSession
            )
        }
        do {
            _ = try await stranger.get(server.url("/api"))
            Issue.record("a grant signed by another key got a token")
        } catch OAuthError.tokenRequestRefused(let status, let error, _) {
            #expect(status == 400 && error == "invalid_grant")
        }
        await session.shutdown()
        await stranger.shutdown()
        await tokenSession.shutdown()
    }

    @Test("a token endpoint answering 307 or 308 (which keep the body) or 302 to another server is not followed: the error names the redirect, and the other server is sent nothing of client_secret_post, client_secret_basic, private_key_jwt or a JWT-bearer grant; a 307 within the origin is followed")
    func redirectsStayWithTheAuthorizationServer() async throws {
        let server = try PythonTLSServer(fixture: "oauth-server", chain: lab.loopbackChain())
        defer { server.stop() }
        // Another server that takes the token requests sent to it and answers with tokens of
        // its own (token substitution).
        let other = try await HTTPTestServer(chain: lab.loopbackChain())
        let tokenSession = lab.session()
        let stolen = other.url("/oauth/token")
        func moved(_ status: Int, to target: String) -> URL {
            URL(string: server.url("/moved").absoluteString + "?status=\(status)&to=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)!
        }
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let account = try ServiceAccountKey(json: JSONSerialization.data(withJSONObject: [
            "type": "service_account", "project_id": "tsec-project", "private_key_id": "k-1", "private_key": rsa.pkcs8PEMRepresentation,
            "client_email": "tsec-test@tsec-project.iam.gserviceaccount.com", "client_id": "1234", "token_uri": moved(307, to: stolen.absoluteString).absoluteString,
        ]))
        let authentications: [OAuthClientAuthentication] = [
            .clientSecretPost(secret: "s3cret:+/&"), .clientSecretBasic(secret: "s3cret:+/&"),
            .privateKeyJWT(try ClientAssertionKey(pemEncoded: P256.Signing.PrivateKey().pemRepresentation)), .jwtBearerGrant(account, subject: nil),
        ]
        for status in [307, 308, 302] {
            for authentication in authentications {
                let tokenURL = moved(status, to: stolen.absoluteString)
                let interceptor = try OAuthClientCredentials(
                    tokenURL: tokenURL, clientID: "partner", authentication: authentication, hosts: ["127.0.0.1"], tokenSession: tokenSession
                )
                let api = lab.session { $0.features.interceptor = interceptor }
                await #expect { try await api.get(server.url("/api")) } throws: { error in
                    guard case .redirectRefused(status, tokenURL, stolen, let reason)? = error.sessionFailureReason else { return false }
                    return reason.contains("authorization server") && "\(error)".hasPrefix("refused the \(status) redirect from \(tokenURL.absoluteString) to \(stolen.absoluteString)")
                }
                await api.shutdown()
            }
        }
        #expect(other.oauth.tokenRequests.isEmpty, "the other server was sent \(other.oauth.tokenRequests.map(\.body))")
        #expect(other.oauth.issuedCount == 0)

        // Within the origin, a moved endpoint is followed, its body with it.
        let interceptor = try OAuthClientCredentials(
            tokenURL: moved(307, to: "/token"), clientID: "partner", authentication: .clientSecretPost(secret: "s3cret:+/&"), hosts: ["127.0.0.1"],
            tokenSession: tokenSession
        )
        let api = lab.session { $0.features.interceptor = interceptor }
        #expect(try await api.get(server.url("/api")).text == "hello")
        await api.shutdown()
        await tokenSession.shutdown()
        await other.stop()
    }
}
