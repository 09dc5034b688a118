import Foundation
import HTTPMessageSignatures
import OAuth
import PKIBuilder
import SecureSession
import TSecCLI
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

extension GetCommandTests {
    @Test("--oauth2-token-url: a token by the client-credentials grant (secret from the environment or a file, basic or post; or tls with the client identity), the token endpoint judged as the URL; refusals and bad options exit 2")
    func oauthClientCredentials() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let token = server.url("/oauth/token").absoluteString
        setenv("TSEC_TEST_OAUTH_SECRET", "s3cret", 1)
        let basic = await get(server.url("/oauth/api"), ["--oauth2-token-url", token, "--oauth2-client-id", "partner", "--oauth2-client-secret-env", "TSEC_TEST_OAUTH_SECRET", "--oauth2-scope", "read", "-v"])
        #expect(basic.status == 0, "\(basic.output.stderr)")
        #expect(basic.output.stdout == "hello with token-1")
        #expect(basic.output.stderr.contains("> Authorization: Basic [hidden]") && basic.output.stderr.contains("> Authorization: Bearer [hidden]"))
        #expect(!basic.output.stderr.contains("s3cret") && !basic.output.stderr.contains("token-1"), "neither the secret nor the token is shown")
        #expect(OAuthServer.formFields(try #require(server.oauth.tokenRequests.last).body) == ["grant_type": "client_credentials", "scope": "read"])

        let secretFile = try files.write("client-secret.txt", "s3cret\n")
        let post = await get(server.url("/oauth/api"), ["--oauth2-token-url", token, "--oauth2-client-id", "partner", "--oauth2-client-secret-file", secretFile, "--oauth2-client-auth", "post"])
        #expect(post.status == 0 && post.output.stdout == "hello with token-2", "\(post.output.stderr)")

        setenv("TSEC_TEST_OAUTH_SECRET", "wrong", 1)
        let refused = await get(server.url("/oauth/api"), ["--oauth2-token-url", token, "--oauth2-client-id", "partner", "--oauth2-client-secret-env", "TSEC_TEST_OAUTH_SECRET"])
        #expect(refused.status == 2)
        #expect(refused.output.stderr == "tsec get: the token endpoint refused to issue a token: HTTP 401 (invalid_client: unknown client or wrong secret)\n")

        let broken = await get(server.url("/oauth/api"), ["--oauth2-token-url", token + "?broken=type", "--oauth2-client-id", "partner", "--oauth2-client-secret-file", secretFile])
        #expect(broken.status == 3 && broken.output.stderr.contains("its token_type is 'mac', not Bearer"))

        let pinned = await get(server.url("/oauth/api"), ["--oauth2-token-url", token, "--oauth2-client-id", "partner", "--oauth2-client-secret-file", secretFile, "--pin-sha256", "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()])
        #expect(pinned.status == 1, "the token endpoint is judged as the URL is: \(pinned.output.stderr)")

        let tokenURL = ["--oauth2-token-url", token, "--oauth2-client-id", "partner"]
        for (arguments, message) in [
            (["--oauth2-client-id", "partner"], "go with --oauth2-token-url"),
            (["--oauth2-token-url", "http://127.0.0.1/token", "--oauth2-client-id", "partner", "--oauth2-client-secret-file", secretFile], "an https URL"),
            (["--oauth2-token-url", token, "--oauth2-client-secret-file", secretFile], "needs --oauth2-client-id"),
            (tokenURL, "needs the client's secret"),
            (tokenURL + ["--oauth2-client-secret-file", secretFile, "--oauth2-client-secret-env", "X"], "needs the client's secret"),
            (tokenURL + ["--oauth2-client-auth", "tls", "--oauth2-client-secret-file", secretFile], "give no secret"),
            (tokenURL + ["--oauth2-client-auth", "saml"], "basic, post, tls or jwt"),
            (tokenURL + ["--oauth2-client-auth", "jwt"], "needs --oauth2-client-key FILE"),
            (tokenURL + ["--oauth2-client-auth", "jwt", "--oauth2-client-key", secretFile, "--oauth2-client-secret-file", secretFile], "give no secret"),
            (tokenURL + ["--oauth2-client-secret-file", secretFile, "--oauth2-client-key", secretFile], "go with --oauth2-client-auth jwt"),
            (tokenURL + ["--oauth2-client-auth", "jwt", "--oauth2-client-key", secretFile, "--oauth2-client-key-alg", "HS256"], "PS256 or RS256"),
            (tokenURL + ["--oauth2-client-auth", "jwt", "--oauth2-client-key", secretFile], "not a PEM P-256, P-384 or RSA private key"),
            (tokenURL + ["--oauth2-client-secret-file", secretFile, "--oauth2-bearer", "x"], "goes with none of"),
            (tokenURL + ["--oauth2-client-auth", "tls"], "needs a client identity"),
            (tokenURL + ["--oauth2-client-secret-env", "TSEC_TEST_OAUTH_UNSET"], "is not set"),
        ] {
            let result = await get(server.url("/oauth/api"), arguments)
            #expect(result.status == 2 && result.output.stderr.contains(message), "\(arguments): \(result.output.stderr)")
        }
        #expect(server.oauth.issuedCount == 2, "no token was asked for by a refused command line")
        await server.stop()
    }

    @Test("--oauth2-client-auth tls: the client identity's certificate proves the client to the token endpoint (RFC 8705), and is presented to the API")
    func oauthMutualTLS() async throws {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let partner = try lab.pki.issue(.client("partner"), by: clientCA)
        let certificate = try files.write("partner.crt", partner.pemString)
        let key = try files.write("partner.key", try partner.privateKeyPEM)
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), clientVerifier: .clients(of: clientCA, at: lab.pki.now))
        let result = await get(server.url("/oauth/api"), [
            "--oauth2-token-url", server.url("/oauth/token").absoluteString, "--oauth2-client-id", "partner", "--oauth2-client-auth", "tls",
            "--client-cert", certificate, "--client-key", key,
        ])
        #expect(result.status == 0 && result.output.stdout == "hello with token-1", "\(result.output.stderr)")
        await server.stop()
    }

    @Test("--oauth2-client-auth jwt: client assertions signed with --oauth2-client-key (kid from --oauth2-client-key-id), verified by oauthlib's server with PyJWT")
    func oauthPrivateKeyJWT() async throws {
        let server = try PythonTLSServer(fixture: "oauth-server", chain: lab.loopbackChain())
        defer { server.stop() }
        let key = try lab.pki.issue(.client("partner"), by: lab.intermediate)
        let privateKey = try files.write("assertion.key", try key.privateKeyPEM)
        let publicKey = try files.write("assertion.pub", try key.certificate.publicKey.serializeAsPEM().pemString)
        let registered = await get(server.url("/register-key"), ["-X", "POST", "--data-binary", "@" + publicKey])
        #expect(registered.status == 0 && registered.output.stdout == "registered", "\(registered.output.stderr)")
        let result = await get(server.url("/api"), [
            "--oauth2-token-url", server.url("/token").absoluteString, "--oauth2-client-id", "partner", "--oauth2-client-auth", "jwt",
            "--oauth2-client-key", privateKey, "--oauth2-client-key-id", "partner-key-1",
        ])
        #expect(result.status == 0 && result.output.stdout == "hello", "\(result.output.stderr)")
    }

    @Test("--oauth2-dpop: a DPoP-bound token (RFC 9449) from oauthlib's server, proofs verified there with PyJWT, -v hiding the proofs; --oauth2-dpop-key binds it to a key of the user's, whose thumbprint the server names; an unusable key exits 2")
    func oauthDPoP() async throws {
        let server = try PythonTLSServer(fixture: "oauth-server", chain: lab.loopbackChain())
        defer { server.stop() }
        setenv("TSEC_TEST_OAUTHLIB_SECRET", "s3cret:+/&", 1)
        let options = ["--oauth2-token-url", server.url("/token").absoluteString, "--oauth2-client-id", "partner", "--oauth2-client-secret-env", "TSEC_TEST_OAUTHLIB_SECRET"]
        let fresh = await get(server.url("/api"), options + ["--oauth2-dpop", "-v"])
        #expect(fresh.status == 0 && fresh.output.stdout.hasPrefix("hello "), "\(fresh.output.stderr)")
        #expect(fresh.output.stderr.contains("> Authorization: DPoP [hidden]") && fresh.output.stderr.contains("> DPoP: [hidden]"))
        #expect(!fresh.output.stderr.contains("eyJ"), "no proof shown")

        let keyFile = try files.write("dpop.key", try lab.pki.issue(.client("dpop"), by: lab.intermediate).privateKeyPEM)
        let chosen = await get(server.url("/api"), options + ["--oauth2-dpop-key", keyFile])
        let chosenKey = try DPoPKey(pemEncoded: try String(contentsOfFile: keyFile, encoding: .utf8))
        #expect(chosen.status == 0 && chosen.output.stdout == "hello " + chosenKey.thumbprint, "\(chosen.output.stderr)")

        let garbage = try files.write("garbage.key", "not a key")
        let refused = await get(server.url("/api"), options + ["--oauth2-dpop-key", garbage])
        #expect(refused.status == 2 && refused.output.stderr.contains("the key for DPoP proofs cannot be used"), "\(refused.output.stderr)")
        let alone = await get(server.url("/api"), ["--oauth2-dpop"])
        #expect(alone.status == 2 && alone.output.stderr.contains("go with --oauth2-token-url"))
    }

    @Test("--oauth2-issuer: the token endpoint from the issuer's metadata (RFC 8414); another issuer's metadata exits 3, a metadata server failing the pin 1, an issuer beside --oauth2-token-url or over http 2")
    func oauthIssuer() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        setenv("TSEC_TEST_OAUTH_ISSUER_SECRET", "s3cret", 1)
        let client = ["--oauth2-client-id", "partner", "--oauth2-client-secret-env", "TSEC_TEST_OAUTH_ISSUER_SECRET"]
        let origin = "https://127.0.0.1:\(server.port)"
        let found = await get(server.url("/oauth/api"), client + ["--oauth2-issuer", origin + "/tenant"])
        #expect(found.status == 0 && found.output.stdout == "hello with token-1", "\(found.output.stderr)")
        let mixup = await get(server.url("/oauth/api"), client + ["--oauth2-issuer", origin + "/mixup"])
        #expect(mixup.status == 3 && mixup.output.stderr.contains("not of \(origin)/mixup (RFC 8414 §3.3)"), "\(mixup.output.stderr)")
        let pinned = await get(server.url("/oauth/api"), client + ["--oauth2-issuer", origin + "/tenant", "--pin-sha256", "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()])
        #expect(pinned.status == 1, "the metadata is read as the URL is judged: \(pinned.output.stderr)")
        let both = await get(server.url("/oauth/api"), client + ["--oauth2-issuer", origin, "--oauth2-token-url", origin + "/oauth/token"])
        #expect(both.status == 2 && both.output.stderr.contains("one of them"), "\(both.output.stderr)")
        let cleartext = await get(server.url("/oauth/api"), client + ["--oauth2-issuer", "http://127.0.0.1:\(server.port)"])
        #expect(cleartext.status == 2 && cleartext.output.stderr.contains("--oauth2-issuer http://127.0.0.1:\(server.port): an https URL"))
        #expect(server.oauth.issuedCount == 1)
        await server.stop()
    }

    @Test("--oauth2-service-account: a Google service account's key file, the token by the JWT bearer grant from its token_uri (oauthlib's server verifying the grant with PyJWT); a file that cannot be used, or other client options beside it, exit 2")
    func oauthServiceAccount() async throws {
        let server = try PythonTLSServer(fixture: "oauth-server", chain: lab.loopbackChain())
        defer { server.stop() }
        let key = try lab.pki.issue(.client("service account"), by: lab.intermediate, algorithm: .rsa2048)
        let publicKey = try files.write("account.pub", try key.certificate.publicKey.serializeAsPEM().pemString)
        let registered = await get(server.url("/register-key"), ["-X", "POST", "--data-binary", "@" + publicKey])
        #expect(registered.status == 0, "\(registered.output.stderr)")
        let json = try JSONSerialization.data(withJSONObject: [
            "type": "service_account", "client_email": "tsec-test@tsec-project.iam.gserviceaccount.com", "private_key": key.privateKeyPEM,
            "private_key_id": "k-9", "token_uri": server.url("/token").absoluteString,
        ])
        let keyFile = try files.write("account.json", String(decoding: json, as: UTF8.self))
        let result = await get(server.url("/api"), ["--oauth2-service-account", keyFile, "--oauth2-scope", "read"])
        #expect(result.status == 0 && result.output.stdout == "hello", "\(result.output.stderr)")

        let garbage = try files.write("garbage.json", "{}")
        let unusable = await get(server.url("/api"), ["--oauth2-service-account", garbage])
        #expect(unusable.status == 2 && unusable.output.stderr.contains("\(garbage): its type is 'none', not service_account"), "\(unusable.output.stderr)")
        let mixed = await get(server.url("/api"), ["--oauth2-service-account", keyFile, "--oauth2-client-id", "partner"])
        #expect(mixed.status == 2 && mixed.output.stderr.contains("goes with --oauth2-scope only"))
    }
}

extension GetCommandTests {
    @Test("--sign-key: the request signed (RFC 9421) with an Ed25519 key from a PEM file or a JWK, its body covered through Content-Digest, verified by the server; a covered field the request lacks and bad options exit 2")
    func messageSignatures() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let keyFile = try files.write("signing-key.pem", try shell("openssl genpkey -algorithm ED25519 2>/dev/null"))
        let publicKey = try shell("openssl pkey -in \(keyFile) -pubout")
        server.signatures.verifier = HTTPMessageSignatureVerifier(
            keys: [try HTTPSignatureVerificationKey(id: "client", pemEncoded: publicKey)],
            requiredComponents: [.method, .targetURI, .field("content-type"), .field("content-digest")]
        )
        let signing = ["--sign-key", keyFile, "--sign-key-id", "client"]
        let signed = await get(server.url("/signed"), signing + [
            "--sign-component", "@method", "--sign-component", "@target-uri", "--sign-component", "content-type",
            "-H", "Content-Type: application/json", "-d", #"{"amount":1}"#,
        ])
        #expect(signed.status == 0 && signed.output.stdout == "verified sig1 by client, body checked: true", "\(signed.output.stderr)")
        let uncovered = await get(server.url("/signed"), signing + ["-d", "x"])
        #expect(uncovered.status == 0 && uncovered.output.stdout.contains(#"does not cover "content-type""#), "the server's 401 says why: \(uncovered.output.stdout)")
        // A JWK names its key itself.
        let jwkFile = try files.write("signing-key.jwk", #"{"kty":"OKP","crv":"Ed25519","kid":"rfc","d":"n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}"#)
        server.signatures.verifier = HTTPMessageSignatureVerifier(keys: [try HTTPSignatureKey(jwk: Data(try String(contentsOfFile: jwkFile, encoding: .utf8).utf8)).verificationKey])
        let byJWK = await get(server.url("/signed"), ["--sign-key", jwkFile])
        #expect(byJWK.status == 0 && byJWK.output.stdout == "verified sig1 by rfc, body checked: false", "\(byJWK.output.stderr)")
        let lacking = await get(server.url("/signed"), signing + ["--sign-component", "x-request-id"])
        #expect(lacking.status == 2 && lacking.output.stderr.contains("the message has no field 'x-request-id'"), "\(lacking.output.stderr)")

        let garbage = try files.write("garbage.pem", "not a key")
        for (arguments, message) in [
            (["--sign-key-id", "client"], "go with --sign-key"),
            (["--sign-key", keyFile], "needs --sign-key-id"),
            (signing + ["--sign-alg", "hmac-sha256"], "rsa-pss-sha512 or rsa-v1_5-sha256"),
            (signing + ["--sign-component", #""@query-param";nme="x""#], "the parameter 'nme' is not one RFC 9421 defines"),
            (["--sign-key", garbage, "--sign-key-id", "client"], "not a PEM Ed25519, P-256, P-384 or RSA private key"),
        ] {
            let result = await get(server.url("/signed"), arguments)
            #expect(result.status == 2 && result.output.stderr.contains(message), "\(arguments): \(result.output.stderr)")
        }
        #expect(server.signatures.verifiedBases.count == 2, "only the first request and the JWK's verified; no refused command line sent one")
        await server.stop()
    }

    @Test("--verify-response-key: a signed answer over its body and the request's method is printed or saved; an unsigned one or one by another key is not, exit 1; --compressed, -C and a device refused")
    func responseSignatures() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let clientKeyFile = try files.write("client-key.pem", try shell("openssl genpkey -algorithm ED25519 2>/dev/null"))
        server.signatures.verifier = HTTPMessageSignatureVerifier(keys: [try HTTPSignatureVerificationKey(id: "client", pemEncoded: try shell("openssl pkey -in \(clientKeyFile) -pubout"))])
        let serverKeyFile = try files.write("server-key.pem", try shell("openssl genpkey -algorithm ED25519 2>/dev/null"))
        let serverPublic = try files.write("server-key.pub", try shell("openssl pkey -in \(serverKeyFile) -pubout"))
        let serverKey = try HTTPSignatureKey(id: "server", pemEncoded: try String(contentsOfFile: serverKeyFile, encoding: .utf8))
        server.signatures.responseSigner = HTTPMessageSigner(key: serverKey, covering: [.status, .field("content-digest"), HTTPMessageComponent.method.ofRequest])
        let arguments = ["--sign-key", clientKeyFile, "--sign-key-id", "client", "--verify-response-key", serverPublic, "--verify-response-key-id", "server"]

        let verified = await get(server.url("/signed"), arguments + ["--verify-response-component", #""@method";req"#, "-i"])
        #expect(verified.status == 0, "\(verified.output.stderr)")
        #expect(verified.output.stdout.hasPrefix("HTTP/1.1 200 OK\n") && verified.output.stdout.hasSuffix("verified sig1 by client, body checked: false"), "\(verified.output.stdout)")
        let saved = await get(server.url("/signed"), arguments + ["-o", files.path("verified.txt")])
        #expect(saved.status == 0 && (try? String(contentsOfFile: files.path("verified.txt"), encoding: .utf8)) == "verified sig1 by client, body checked: false")
        let json = await get(server.url("/signed"), arguments + ["--json"])
        #expect(json.status == 0 && json.output.stdout.contains("\"status\" : 200"), "\(json.output.stdout)")
        // The token endpoint's answers are not the API's: not required signed.
        let secretFile = try files.write("response-signatures-secret.txt", "s3cret\n")
        let withToken = await get(server.url("/signed"), arguments + [
            "--oauth2-token-url", server.url("/oauth/token").absoluteString, "--oauth2-client-id", "partner", "--oauth2-client-secret-file", secretFile,
        ])
        #expect(withToken.status == 0 && withToken.output.stdout == "verified sig1 by client, body checked: false", "\(withToken.output.stderr)")

        let uncovered = await get(server.url("/signed"), arguments + ["--verify-response-component", "x-request-id"])
        #expect(uncovered.status == 1 && uncovered.output.stdout.isEmpty)
        #expect(uncovered.output.stderr.contains(#"does not cover "x-request-id""#), "\(uncovered.output.stderr)")
        server.signatures.responseSigner = HTTPMessageSigner(key: HTTPSignatureKey.generated(id: "server"), covering: [.status, .field("content-digest")])
        let forged = await get(server.url("/signed"), arguments)
        #expect(forged.status == 1 && forged.output.stdout.isEmpty)
        let forgedFile = await get(server.url("/signed"), arguments + ["-o", files.path("forged.txt")])
        #expect(forgedFile.status == 1 && !FileManager.default.fileExists(atPath: files.path("forged.txt")), "\(forgedFile.output.stderr)")
        #expect(forged.output.stderr.contains("the response (status 200) was refused: its HTTP message signature does not hold"), "\(forged.output.stderr)")
        server.signatures.responseSigner = nil
        let unsigned = await get(server.url("/signed"), arguments + ["--json"])
        #expect(unsigned.status == 1)
        #expect(unsigned.output.stdout.contains("\"error\" : \"response_signature_rejected\""), "\(unsigned.output.stdout)")

        for (extra, message) in [
            (["--compressed"], "it does not go with --compressed"),
            (["-o", files.path("partial"), "-C", "-"], "it does not go with -C"),
            (["-o", "/dev/null"], "download to a file"),
            (["--verify-response-alg", "ed25519"], "rsa-pss-sha512 or rsa-v1_5-sha256"),
        ] {
            let refused = await get(server.url("/signed"), arguments + extra)
            #expect(refused.status == 2 && refused.output.stderr.contains(message), "\(extra): \(refused.output.stderr)")
        }
        let alone = await get(server.url("/signed"), ["--verify-response-key-id", "server"])
        #expect(alone.status == 2 && alone.output.stderr.contains("go with --verify-response-key"), "\(alone.output.stderr)")
        let noID = await get(server.url("/signed"), ["--verify-response-key", serverPublic])
        #expect(noID.status == 2 && noID.output.stderr.contains("needs --verify-response-key-id"), "\(noID.output.stderr)")
    }
}
