import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import PKIBuilder
import SecureSession
import Synchronization
import TestServers
import Testing
import TransportSecurity
import TransportSecurityGRPC

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
        let server = try await EchoServer(presenting: lab.chain(.legitimate), interceptors: [gate])
        let credentials = try OAuthClientCredentials(
            tokenURL: tokenServer.url("/oauth/token"), clientID: "partner", authentication: .clientSecretBasic(secret: secret),
            scopes: ["payments"], hosts: ["127.0.0.1"], tokenSession: tokenSession ?? lab.session(), proofOfPossession: proof
        )
        return Setup(tokenServer: tokenServer, gate: gate, server: server, credentials: credentials)
    }

    /// Runs `body` with a client of `setup`'s server whose calls carry `setup`'s credentials.
    func withClient<Result: Sendable>(
        _ setup: Setup,
        _ body: (GRPCClient<HTTP2ClientTransport.Posix>) async throws -> Result
    ) async throws -> Result {
        try await withGRPCClient(
            transport: verifiedTransport(port: setup.server.port, lab.serverVerifier()),
            interceptors: [OAuthCallCredentials(setup.credentials)],
            handleClient: body
        )
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

    @Test("no token, no call: the token endpoint's refusal fails the call UNAUTHENTICATED with the OAuthError as its cause, a rejected token endpoint fails it UNAVAILABLE with the trust decision, DPoP-bound credentials fail it UNAUTHENTICATED; nothing reaches the gRPC server")
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
        guard case .trustRejected(let decision)? = rejection?.cause as? SecureSessionError else {
            Issue.record("cause: \(String(describing: rejection?.cause))")
            return
        }
        #expect(decision.pinMismatch?.expected.map(\.pin) == [lab.rogueRoot.der.spkiPin])
        #expect(wrongSecret.gate.authorizations.isEmpty && rejected.gate.authorizations.isEmpty, "no call was sent")

        let bound = try await setUp(proof: .generated())
        let unbound = try await withClient(bound) { client in await rpcError { try await ping(client) } }
        await bound.stop()
        #expect(unbound?.code == .unauthenticated, "a DPoP-bound token goes with HTTP requests only")
        guard case .proofRequiredPerRequest? = unbound?.cause as? OAuthError else {
            Issue.record("cause: \(String(describing: unbound?.cause))")
            return
        }
        #expect(bound.gate.authorizations.isEmpty && bound.tokenServer.oauth.issuedCount == 0)
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
