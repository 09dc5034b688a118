#if GRPC
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import OAuth
import PKIBuilder
import SecureSession
import Synchronization
import TestServers
import Testing
import TransportSecurity

@testable import TransportSecurityGRPC

/// OAuth 2.0 client credentials on gRPC calls (``OAuthCallCredentials``): grpc-swift's server
/// with an interceptor that lets in only the tokens the test server's token endpoint
/// (``OAuthServer``) issued and did not revoke.
@Suite("gRPC: OAuth client credentials on calls")
struct GRPCOAuthTests {
    let lab = try! TrustLab()

    /// The token endpoint, the gRPC server behind the token gate, and credentials for `partner`.
    struct Setup {
        let tokenServer: HTTPTestServer
        let gate: BearerGate
        let proofGate: ProofGate
        let server: EchoServer
        let credentials: OAuthClientCredentials

        func stop() async {
            await server.stop()
            await tokenServer.stop()
        }
    }

    func setUp(secret: String = "s3cret", tokenSession: SecureSession? = nil, proof: DPoPKey? = nil) async throws -> Setup {
        let tokenServer = try await HTTPTestServer(chain: lab.loopbackChain())
        let gate = BearerGate(oauth: tokenServer.oauth)
        let proofGate = ProofGate(oauth: tokenServer.oauth)
        let server = try await EchoServer(presenting: lab.chain(.legitimate), interceptors: [proof == nil ? gate : proofGate])
        let credentials = try OAuthClientCredentials(
            tokenURL: tokenServer.url("/oauth/token"), clientID: "partner", authentication: .clientSecretBasic(secret: secret),
            scopes: ["payments"], hosts: ["127.0.0.1"], tokenSession: tokenSession ?? lab.session(), proofOfPossession: proof
        )
        return Setup(tokenServer: tokenServer, gate: gate, proofGate: proofGate, server: server, credentials: credentials)
    }

    /// Runs `body` with a client of `setup`'s server whose calls carry `setup`'s credentials,
    /// told the server's URL when `server` is given.
    func withClient<Result: Sendable>(
        _ setup: Setup,
        server: String? = nil,
        _ body: (GRPCClient<HTTP2ClientTransport.Posix>) async throws -> Result
    ) async throws -> Result {
        try await withGRPCClient(
            transport: verifiedTransport(port: setup.server.port, lab.serverVerifier()),
            interceptors: [OAuthCallCredentials(setup.credentials, server: server.map { URL(string: $0)! })],
            handleClient: body
        )
    }

    @Test("a call without a token fails with its reason: CANCELLED when the token request was cancelled (as the token source says), UNAUTHENTICATED for an OAuth refusal, UNAVAILABLE when the token endpoint was not reached")
    func noTokenStatuses() async throws {
        let tokens = SecureSession()
        let credentials = try OAuthClientCredentials(
            tokenURL: URL(string: "https://idp.example.test/token")!, clientID: "partner", authentication: .mutualTLS, hosts: ["api.example.test"],
            tokenSession: tokens
        )
        let code = { (error: any Error) in OAuthCallCredentials.noToken(because: error, from: credentials).code }
        #expect(code(CancellationError()) == .cancelled)
        #expect(code(SecureSessionError.cancelled) == .cancelled, "the token session's own cancellation")
        #expect(code(OAuthError.invalidTokenResponse("no access_token")) == .unauthenticated)
        #expect(code(SecureSessionError.connectionFailed("refused")) == .unavailable)
        await tokens.shutdown()
    }

    @Test("every call carries the token in its authorization metadata, in place of one of its own; ten calls at once wait for one token request; the description shows neither secret nor token")
    func callsCarryTheToken() async throws {
        let setup = try await setUp()
        let answers = try await withClient(setup) { client in
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await ping(client, metadata: ["authorization": "Basic c3RvbGVuOmNyZWRlbnRpYWxz"]) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        await setup.stop()

        #expect(answers == Array(repeating: "anonymous|ping", count: 10))
        #expect(setup.gate.authorizations == Array(repeating: ["Bearer token-1"], count: 10), "one value each: the caller's own was replaced")
        #expect(setup.tokenServer.oauth.issuedCount == 1)
        let form = OAuthServer.formFields(try #require(setup.tokenServer.oauth.tokenRequests.first).body)
        #expect(form == ["grant_type": "client_credentials", "scope": "payments"])
        let description = "\(OAuthCallCredentials(setup.credentials))"
        #expect(description.hasPrefix("OAuthCallCredentials(OAuthClientCredentials(partner"))
        #expect(!description.contains("s3cret") && !description.contains("token-1"))
    }

    @Test("a revoked token: the call refused UNAUTHENTICATED makes the next call carry a new token, and a retry policy naming .unauthenticated makes the same call succeed")
    func revokedTokenReplaced() async throws {
        let setup = try await setUp()
        let (refused, afterwards, retried) = try await withClient(setup) { client in
            _ = try await ping(client)
            setup.tokenServer.oauth.revokeAll()
            let refused = await rpcErrorCode { try await ping(client) }
            let afterwards = try await ping(client)
            setup.tokenServer.oauth.revokeAll()
            let retried = try await ping(client, retrying: [.unauthenticated])
            return (refused, afterwards, retried)
        }
        await setup.stop()

        #expect(refused == .unauthenticated)
        #expect(afterwards == "anonymous|ping" && retried == "anonymous|ping")
        #expect(setup.gate.authorizations.map { $0.first ?? "" } == ["Bearer token-1", "Bearer token-1", "Bearer token-2", "Bearer token-2", "Bearer token-3"])
        #expect(setup.tokenServer.oauth.issuedCount == 3)
        #expect(setup.server.service.calls == 3, "the refused attempts never reached the service")
    }

    @Test("a token no server ever accepted is not replaced on refusal: four attempts under a retry policy carry the one token, and the token endpoint is asked once")
    func neverAcceptedTokenNoStorm() async throws {
        let setup = try await setUp()
        setup.tokenServer.oauth.setAcceptsTokens(false)
        let refused = try await withClient(setup) { client in
            await rpcErrorCode { try await ping(client, retrying: [.unauthenticated], attempts: 4) }
        }
        await setup.stop()

        #expect(refused == .unauthenticated)
        #expect(setup.gate.authorizations == Array(repeating: ["Bearer token-1"], count: 4))
        #expect(setup.tokenServer.oauth.issuedCount == 1)
        #expect(setup.server.service.calls == 0)
    }

    @Test("no token, no call: the token endpoint's refusal fails the call UNAUTHENTICATED with the OAuthError as its cause, a rejected token endpoint fails it UNAVAILABLE with the trust decision, DPoP-bound credentials without the server's URL fail it UNAUTHENTICATED; nothing reaches the gRPC server")
    func noTokenNoCall() async throws {
        let wrongSecret = try await setUp(secret: "guess")
        let refusal = try await withClient(wrongSecret) { client in await rpcError { try await ping(client) } }
        await wrongSecret.stop()

        let pinnedElsewhere = lab.session(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.rogueRoot.der]))
        let rejected = try await setUp(tokenSession: pinnedElsewhere)
        let rejection = try await withClient(rejected) { client in await rpcError { try await ping(client) } }
        await rejected.stop()

        #expect(refusal?.code == .unauthenticated)
        guard case .tokenRequestRefused(401, "invalid_client", _)? = refusal?.cause as? OAuthError else {
            Issue.record("cause: \(String(describing: refusal?.cause))")
            return
        }
        #expect(refusal?.message.contains("invalid_client") == true)
        #expect(rejection?.code == .unavailable)
        guard case .trustRejected(let decision)? = rejection?.cause?.sessionFailureReason else {
            Issue.record("cause: \(String(describing: rejection?.cause))")
            return
        }
        #expect(decision.pinMismatch?.expected.map(\.pin) == [lab.rogueRoot.der.spkiPin])
        #expect(wrongSecret.gate.authorizations.isEmpty && rejected.gate.authorizations.isEmpty, "no call was sent")

        let bound = try await setUp(proof: .generated())
        let unbound = try await withClient(bound) { client in await rpcError { try await ping(client) } }
        await bound.stop()
        #expect(unbound?.code == .unauthenticated, "a DPoP proof names the server, which grpc-swift does not tell an interceptor")
        guard case .proofRequiredPerRequest? = unbound?.cause as? OAuthError else {
            Issue.record("cause: \(String(describing: unbound?.cause))")
            return
        }
        #expect(bound.gate.authorizations.isEmpty && bound.tokenServer.oauth.issuedCount == 0)
    }
}

extension GRPCOAuthTests {
    @Test("DPoP-bound tokens (RFC 9449) on calls given the server's URL: each call carries authorization DPoP <token> and one proof of its own, in place of the caller's (POST, htu the server's URL and the call's path, ath the token's hash, a new jti), signed by the key the token endpoint bound the token to; ten calls at once wait for one token request")
    func proofOfPossession() async throws {
        let key = DPoPKey.generated()
        let setup = try await setUp(proof: key)
        let origin = "https://127.0.0.1:\(setup.server.port)"
        let answers = try await withClient(setup, server: origin + "/ignored/path?q=1") { client in
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await ping(client, metadata: ["dpop": "a proof of the caller's own", "authorization": "Bearer stolen"]) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        await setup.stop()

        #expect(answers == Array(repeating: "anonymous|ping", count: 10))
        let seen = setup.proofGate.seen
        #expect(seen.count == 10 && seen.allSatisfy { $0.refusal == nil }, "\(seen.compactMap(\.refusal))")
        #expect(seen.allSatisfy { $0.authorizations == ["DPoP token-1"] && $0.proofs.count == 1 })
        let proofs = seen.compactMap(\.proof)
        #expect(proofs.count == 10)
        #expect(proofs.allSatisfy { $0.method == "POST" && $0.targetURI == origin + "/tsec.Echo/Echo" })
        #expect(proofs.allSatisfy { $0.tokenHash == DPoPProofCheck.hash(ofToken: "token-1") && $0.thumbprint == key.thumbprint && $0.nonce == nil })
        #expect(Set(proofs.map(\.id)).count == 10, "a new jti for each call")
        #expect(setup.tokenServer.oauth.issuedCount == 1)
        let tokenRequest = try #require(setup.tokenServer.oauth.tokenRequests.first)
        #expect(tokenRequest.headers.contains { $0.0 == "DPoP" }, "the token was asked for with a proof, and bound")
        let description = "\(OAuthCallCredentials(setup.credentials, server: URL(string: origin)!))"
        #expect(description.hasSuffix(", DPoP ES256), server: \(origin))") && !description.contains("token-1"))
    }

    @Test("a DPoP nonce demanded (UNAUTHENTICATED, www-authenticate use_dpop_nonce, dpop-nonce): the token is kept, the next call carries the nonce, and a retry policy naming .unauthenticated makes the same call succeed with a new one; a revoked DPoP token is still replaced")
    func proofNonce() async throws {
        let setup = try await setUp(proof: .generated())
        let origin = "https://127.0.0.1:\(setup.server.port)"
        let (demanded, afterwards, retried, revoked, renewed) = try await withClient(setup, server: origin) { client in
            _ = try await ping(client)
            setup.proofGate.demandNonce("n-1")
            let demanded = await rpcError { try await ping(client) }
            let afterwards = try await ping(client)
            setup.proofGate.demandNonce("n-2")
            let retried = try await ping(client, retrying: [.unauthenticated])
            setup.tokenServer.oauth.revokeAll()
            let revoked = await rpcErrorCode { try await ping(client) }
            let renewed = try await ping(client)
            return (demanded, afterwards, retried, revoked, renewed)
        }
        await setup.stop()

        #expect(demanded?.code == .unauthenticated)
        #expect(demanded?.metadata[stringValues: "dpop-nonce"].contains("n-1") == true)
        #expect(afterwards == "anonymous|ping" && retried == "anonymous|ping" && renewed == "anonymous|ping")
        #expect(revoked == .unauthenticated)
        let seen = setup.proofGate.seen
        #expect(seen.map { $0.proof?.nonce ?? "-" } == ["-", "-", "n-1", "n-1", "n-2", "n-2", "n-2"])
        #expect(seen.map { $0.authorizations.first ?? "" } == ["DPoP token-1", "DPoP token-1", "DPoP token-1", "DPoP token-1", "DPoP token-1", "DPoP token-1", "DPoP token-2"])
        #expect(seen.map { $0.refusal ?? "ok" } == ["ok", "use_dpop_nonce", "ok", "use_dpop_nonce", "ok", "invalid_token", "ok"])
        #expect(setup.tokenServer.oauth.issuedCount == 2, "a nonce demanded is no refusal of the token")
    }

    @Test("a call's URL for its proof: the server's origin as given (an IPv6 address in brackets, a port), then /package.Service/Method; the server URL's user, path, query and fragment left out")
    func callURL() throws {
        let cases = [
            ("https://payments.bank.example", "https://payments.bank.example/tsec.Echo/Echo"),
            ("https://user:secret@[::1]:8443/base/path?q=1#top", "https://[::1]:8443/tsec.Echo/Echo"),
            ("https://127.0.0.1:9443/", "https://127.0.0.1:9443/tsec.Echo/Echo"),
        ]
        for (server, expected) in cases {
            #expect(OAuthCallCredentials.url(of: EchoService.method, at: try #require(URL(string: server))).absoluteString == expected)
        }
    }

    @Test("a server URL that is not https fails DPoP calls UNAUTHENTICATED (cleartextRequest) before a token is asked for or a call sent")
    func proofCleartextServer() async throws {
        let setup = try await setUp(proof: .generated())
        let error = try await withClient(setup, server: "http://127.0.0.1:\(setup.server.port)") { client in
            await rpcError { try await ping(client) }
        }
        await setup.stop()

        #expect(error?.code == .unauthenticated)
        guard case .cleartextRequest? = error?.cause as? OAuthError else {
            Issue.record("cause: \(String(describing: error?.cause))")
            return
        }
        #expect(setup.proofGate.seen.isEmpty && setup.tokenServer.oauth.issuedCount == 0)
    }
}

/// A server interceptor that lets through the calls carrying one `DPoP` token `oauth` issued
/// and one proof (``DPoPProofCheck``) for it: signed by the key the token is bound to, `POST`,
/// `htu` this server's URL and the call's path, `ath` the token's hash, a `jti` not seen before,
/// `iat` within a minute, the nonce when one is demanded. Others fail `UNAUTHENTICATED`, a
/// missing or old nonce with `www-authenticate` `use_dpop_nonce` and the nonce in `dpop-nonce`.
final class ProofGate: ServerInterceptor {
    /// What a call carried and why it was refused (`nil`: let through).
    struct Seen: Sendable {
        let authorizations: [String]
        let proofs: [String]
        let proof: DPoPProofCheck?
        let refusal: String?
    }

    let oauth: OAuthServer
    private let state = Mutex<(nonce: String?, ids: Set<String>, seen: [Seen])>((nil, [], []))

    init(oauth: OAuthServer) {
        self.oauth = oauth
    }

    /// What each call carried, in order.
    var seen: [Seen] { state.withLock { $0.seen } }

    /// Demands `nonce` in the proofs from now on.
    func demandNonce(_ nonce: String) { state.withLock { $0.nonce = nonce } }

    func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingServerRequest<Input>,
        context: ServerContext,
        next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
    ) async throws -> StreamingServerResponse<Output> {
        let authorizations = Array(request.metadata[stringValues: "authorization"])
        let proofs = Array(request.metadata[stringValues: "dpop"])
        let proof = proofs.count == 1 ? try? DPoPProofCheck(proofs[0]) : nil
        let port = context.localPeer.split(separator: ":").last.map(String.init) ?? "?"
        let (refusal, nonce) = state.withLock { state -> (String?, String?) in
            let refusal: String?
            if authorizations.count != 1 || proof == nil {
                refusal = "invalid_dpop_proof"
            } else if let proof, let token = oauth.acceptedToken(authorizations[0], proofKey: proof.thumbprint),
                proof.method == "POST", proof.targetURI == "https://127.0.0.1:\(port)/\(context.descriptor.fullyQualifiedMethod)",
                proof.tokenHash == DPoPProofCheck.hash(ofToken: token), abs(proof.issuedAt - Int(Date().timeIntervalSince1970)) < 60,
                !state.ids.contains(proof.id)
            {
                state.ids.insert(proof.id)
                refusal = state.nonce != nil && proof.nonce != state.nonce ? "use_dpop_nonce" : nil
            } else {
                refusal = "invalid_token"
            }
            state.seen.append(Seen(authorizations: authorizations, proofs: proofs, proof: proof, refusal: refusal))
            return (refusal, state.nonce)
        }
        switch refusal {
        case nil:
            return try await next(request, context)
        case "use_dpop_nonce":
            throw RPCError(code: .unauthenticated, message: "a nonce is required", metadata: [
                "www-authenticate": #"DPoP error="use_dpop_nonce", error_description="a nonce is required""#, "dpop-nonce": .string(nonce ?? ""),
            ])
        case let refusal?:
            throw RPCError(code: .unauthenticated, message: "refused: \(refusal)", metadata: ["www-authenticate": .string(#"DPoP error="\#(refusal)""#)])
        }
    }
}

/// A server interceptor that lets through the calls whose `authorization` metadata carries one
/// token `oauth` accepts, fails the others `UNAUTHENTICATED`, and keeps what each call carried.
final class BearerGate: ServerInterceptor {
    let oauth: OAuthServer
    private let seen = Mutex<[[String]]>([])

    init(oauth: OAuthServer) {
        self.oauth = oauth
    }

    /// The `authorization` values of each call, in order.
    var authorizations: [[String]] { seen.withLock { $0 } }

    func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingServerRequest<Input>,
        context: ServerContext,
        next: @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
    ) async throws -> StreamingServerResponse<Output> {
        let values = Array(request.metadata[stringValues: "authorization"])
        seen.withLock { $0.append(values) }
        guard values.count == 1, oauth.acceptedToken(values[0]) != nil else {
            throw RPCError(code: .unauthenticated, message: "token refused")
        }
        return try await next(request, context)
    }
}
#endif
