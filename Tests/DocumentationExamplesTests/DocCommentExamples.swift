import CircuitBreaking
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import HTTPMessageSignatures
import Logging
import NIOCore
import NIOSSL
import PKIBuilder
import Reachability
import SecureSession
import SecureSessionOpenAPI
import ServiceLifecycle
import TransportSecurity
import TransportSecurityGRPC
import TransportSecurityNIO

// The Swift examples of the documentation comments and the DocC articles, each between
// `example begin` and `example end` as the documentation shows it, compiled as
// ReadmeExamples.swift compiles README.md's (what each takes from its context is a parameter).

/// Sources/PKIBuilder/PKI.swift
func pkiExample() async throws {
    // example begin
    let pki = PKI()
    let root = try pki.issueRoot(.certificateAuthority("Example Root"))
    let leaf = try pki.issue(.server("api.example.com"), by: root)
    // example end
    _ = leaf
}

/// Sources/Reachability/ReachabilityMonitor.swift
func reachabilityMonitorExample() async throws {
    // example begin
    let monitor = ReachabilityMonitor(host: "api.example.com")
    try monitor.startMonitoring()
    for await status in monitor.statusUpdates() {
        print(status.localizedDescription)   // "Reachable via Ethernet", "Not Reachable", …
    }
    // example end
}

/// Sources/SecureSession/API/SecureSessionError.swift
func secureSessionErrorExample(session: SecureSession, url: URL) async throws {
    // example begin
    do {
        _ = try await session.get(url)
    } catch let error as SecureSessionError where error.code == .trustRejected {
        print(error.trustDecision?.pinMismatch?.description ?? "\(error)")
    }
    // example end
}

/// Sources/SecureSession/Bodies/Formats/MultipartForm.swift
func multipartFormExample(pdf: Data, session: SecureSession, uploadURL: URL) async throws {
    // example begin
    var form = MultipartForm()
    form.append("Quarterly report", name: "title")
    form.append(pdf, name: "file", filename: "q3.pdf", contentType: "application/pdf")
    form.appendFile(at: "/data/statements-2026.zip", name: "archive")   // streamed from disk
    let response = try await session.send(.multipart(url: uploadURL, form: form))
    // example end
    _ = response
}

/// Sources/SecureSession/Bodies/Request/RequestBodyPart.swift
func requestBodyPartExample(uploadURL: URL) async throws {
    // example begin
    var request = SecureRequest(.post, url: uploadURL, headers: [("Content-Type", "multipart/related; boundary=b")])
    request.bodyParts = [
        .data(Data("--b\r\nContent-Type: application/json\r\n\r\n{\"name\":\"q3.pdf\"}\r\n--b\r\nContent-Type: application/pdf\r\n\r\n".utf8)),
        .file("/data/q3.pdf"),
        .data(Data("\r\n--b--\r\n".utf8)),
    ]
    // example end
    _ = request
}

/// Sources/SecureSession/Features/Cookies/CookieJar.swift
func cookieJarExample(credentials: Credentials) async throws {
    // example begin
    let jar = CookieJar()
    let session = SecureSession(configuration: .init(features: .init(cookieJar: jar)))
    _ = try await session.send(.json(.post, url: URL(string: "https://api.example.com/login")!, body: credentials))
    let me = try await session.get(URL(string: "https://api.example.com/me")!)  // sends the session cookie
    // example end
    _ = me
}

/// Sources/SecureSession/Bodies/Response/DecodedLines.swift
func decodedLinesExample(session: SecureSession, exportURL: URL, store: (Order) async throws -> Void) async throws {
    // example begin
    let (_, body) = try await session.bytes(for: SecureRequest(url: exportURL))
    for try await order in body.decodedLines(Order.self) { try await store(order) }
    // example end
}

/// Sources/SecureSession/Features/MessageSignatures/HTTPMessageComponent.swift
func httpMessageComponentExample() async throws {
    // example begin
    let covered: [HTTPMessageComponent] = [.method, .authority, .path, .queryParameter("account"),
                                           .field("content-digest"), .field("content-type")]
    // example end
    _ = covered
}

/// Sources/SecureSession/Features/MessageSignatures/HTTPMessageSignatureVerifier.swift
func httpMessageSignatureVerifierExample(publicPEM: String, url: URL, fields: [(name: String, value: String)], body: Data) async throws {
    // example begin
    let verifier = HTTPMessageSignatureVerifier(
        keys: [try HTTPSignatureVerificationKey(id: "client-2026", pemEncoded: publicPEM)],
        requiredComponents: [.method, .targetURI, .field("content-digest")]
    )
    let verified = try verifier.verify(.request(method: "POST", url: url, headers: fields, body: body))
    // example end
    _ = verified
}

/// Sources/SecureSession/Features/MessageSignatures/HTTPMessageSigner.swift
func httpMessageSignerExample(pem: String) async throws {
    // example begin
    let key = try HTTPSignatureKey(id: "client-2026", pemEncoded: pem)
    var configuration = SecureSessionConfiguration()
    configuration.features.interceptor = HTTPMessageSigner(key: key, covering: [.method, .targetURI, .field("content-type")])
    // example end
    _ = configuration
}

/// Sources/SecureSession/Features/MessageSignatures/Keys/HTTPSignatureKey.swift
func httpSignatureKeyExample() async throws {
    // example begin
    let key = try HTTPSignatureKey(id: "partner-2026", pemEncoded: String(contentsOfFile: "signing-key.pem", encoding: .utf8))
    // example end
    _ = key
}

/// Sources/SecureSession/Features/MessageSignatures/HTTPSignatureMessage.swift
func httpSignatureMessageExample(verifier: HTTPMessageSignatureVerifier, url: URL, fields: [(name: String, value: String)], body: Data) async throws {
    // example begin
    // On a server: the request as it arrived.
    let message = HTTPSignatureMessage.request(method: "POST", url: url, headers: fields, body: body)
    let verified = try verifier.verify(message)
    // example end
    _ = verified
}

/// Sources/SecureSession/Features/MessageSignatures/HTTPSignatureReplayGuard.swift
func httpSignatureReplayGuardExample(keys: [HTTPSignatureVerificationKey]) async throws {
    // example begin
    var verifier = HTTPMessageSignatureVerifier(keys: keys, requiredComponents: [.method, .targetURI])
    verifier.replayGuard = HTTPSignatureReplayGuard()
    // example end
    _ = verifier
}

/// Sources/SecureSession/Features/MessageSignatures/ResponseSignatureRequirement.swift
func responseSignatureRequirementExample(configuration: inout SecureSessionConfiguration, bankKeys: Data) async throws {
    // example begin
    configuration.responses.signatures = ResponseSignatureRequirement(
        verifier: HTTPMessageSignatureVerifier(
            keys: try HTTPSignatureVerificationKey.keys(jwkSet: bankKeys),
            requiredComponents: [.status, .field("content-digest")]
        ),
        hosts: [try HostPattern("api.bank.example")]
    )
    // example end
}

/// Sources/SecureSession/Features/OAuth/OAuthClientCredentials.swift
func oauthClientCredentialsExample(idpPolicy: SecurityPolicy, apiPolicy: SecurityPolicy, identity: ClientIdentity) async throws {
    // example begin
    let tokens = SecureSession(configuration: .init(tls: .init(trustEvaluator: idpPolicy, clientIdentity: identity)))
    var configuration = SecureSessionConfiguration(tls: .init(trustEvaluator: apiPolicy, clientIdentity: identity))
    configuration.features.interceptor = try OAuthClientCredentials(
        tokenURL: URL(string: "https://auth.bank.example/oauth2/token")!,
        clientID: "partner-42", authentication: .mutualTLS, scopes: ["payments"],
        hosts: ["api.bank.example"], tokenSession: tokens)
    let api = SecureSession(configuration: configuration)
    // example end
    _ = api
}

/// Sources/SecureSession/Trust/Pins/PinSetUpdater.swift
func pinSetUpdaterExample(builtInKey: String, builtInSets: [DomainPinSet], storePath: String) async throws {
    // example begin
    let registry = PinSetRegistry(publicKey: try PinUpdatePublicKey(pemEncoded: builtInKey),
                                  builtIn: builtInSets, store: PinUpdateStore(path: storePath))
    _ = try? registry.loadStored()
    var configuration = SecureSessionConfiguration()
    configuration.tls.pinSetRegistry = registry
    let session = SecureSession(configuration: configuration)
    let updater = PinSetUpdater(registry: registry, session: session,
                                documentURL: URL(string: "https://pins.example.com/pins.json")!)
    let task = updater.start()   // cancel the task to stop
    // example end
    task.cancel()
}

/// Sources/SecureSession/Features/Retrying/ChainedInterceptor.swift
func chainedInterceptorExample(configuration: inout SecureSessionConfiguration, store: TokenStore) async throws {
    // example begin
    configuration.features.interceptor = ChainedInterceptor([BearerToken(tokens: store), RetryPolicy()])
    // example end
}

/// Sources/SecureSession/Features/Retrying/IdempotencyKeys.swift
func idempotencyKeysExample(configuration: inout SecureSessionConfiguration) async throws {
    // example begin
    configuration.features.interceptor = ChainedInterceptor([IdempotencyKeys(), RetryPolicy()])
    // POST https://api.psp.example/payments
    // Idempotency-Key: "1b4e28ba-2fa1-4d2b-a8c4-6f0e7e5a1c3d"   (the same on every retry)
    // example end
}

/// Sources/SecureSession/Features/Retrying/RequestAdapter.swift
func requestAdapterExample(signer: RequestSigner) async throws {
    // example begin
    let signing = RequestAdapter { request, _ in
        var request = request
        request.headers.append(("X-Signature", try await signer.signature(for: request)))
        return request
    }
    // example end
    _ = signing
}

/// Sources/SecureSession/Features/Retrying/RequestInterceptor.swift
func requestInterceptorExample() async throws {
    // example begin
    struct BearerToken: RequestInterceptor {
        let tokens: TokenStore
        func adapt(_ request: SecureRequest, attempt: RequestAttempt) async throws -> SecureRequest {
            var request = request
            request.headers.append(("Authorization", "Bearer \(try await tokens.current())"))
            return request
        }
        func retry(_ request: SecureRequest, after outcome: AttemptOutcome, attempt: RequestAttempt) async -> RetryDecision {
            guard attempt.number == 1, outcome.statusCode == 401, await tokens.refresh() else { return .doNotRetry }
            return .retry(after: .zero)
        }
    }
    // example end
}

/// Sources/SecureSession/SecureSession+Bytes.swift
func bytesExample(session: SecureSession, eventsURL: URL, handle: (String) -> Void) async throws {
    // example begin
    let (head, body) = try await session.bytes(for: SecureRequest(url: eventsURL))
    for try await line in body.lines { handle(line) }
    // example end
    _ = head
}

/// Sources/SecureSession/API/Configuration/SecureSessionConfiguration.swift
func secureSessionConfigurationExample(pins: [DERCertificate]) {
    // example begin
    var configuration = SecureSessionConfiguration(
        tls: .init(trustEvaluator: SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: pins)),
        timeouts: .init(connect: .seconds(5), request: .seconds(30))
    )
    configuration.features.cookieJar = CookieJar()
    // example end
    _ = configuration
}

/// Sources/SecureSession/SecureSession+Service.swift and SessionGuide.md
func secureSessionServiceExample(configuration: SecureSessionConfiguration, server: some Service, logger: Logger) async throws {
    // example begin
    let session = SecureSession(configuration: configuration)
    let group = ServiceGroup(services: [session, server], gracefulShutdownSignals: [.sigterm], logger: logger)
    try await group.run()   // on SIGTERM: the server stops first, then the session closes its connections
    // example end
}

/// Sources/SecureSession/SecureSession.swift
func secureSessionExample() async throws {
    // example begin
    let pins = try CertificateLoader.certificates(atPath: "pins/issuing-ca.pem")
    let session = SecureSession(configuration: .init(tls: .init(
        trustEvaluator: SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: pins)
    )))
    let user: User = try await session.get(URL(string: "https://api.example.com/me")!).decode(User.self)
    await session.shutdown()
    // example end
    _ = user
}

/// Sources/SecureSession/Bodies/Response/ServerSentEvents.swift
func serverSentEventsExample(session: SecureSession, streamURL: URL) async throws {
    // example begin
    var request = SecureRequest(url: streamURL)
    request.headers.append((name: "Accept", value: "text/event-stream"))
    let (_, body) = try await session.bytes(for: request)
    for try await event in body.events where event.event == "delta" { print(event.data) }
    // example end
}

/// Sources/SecureSession/Trust/Fetchers/SessionIssuerFetcher.swift
func sessionIssuerFetcherExample() async throws {
    // example begin
    let fetcher = SessionIssuerFetcher(session: SecureSession())   // a session of its own
    let configuration = SecureSessionConfiguration(
        tls: .init(trustEvaluator: IntermediateFetchingEvaluator(SecurityPolicy.default, fetcher: fetcher)))
    // example end
    _ = configuration
}

/// Sources/SecureSession/Features/WebSocket/SecureSession+WebSocket.swift
func webSocketExample(session: SecureSession) async throws {
    // example begin
    try await session.webSocket(URL(string: "wss://stream.partner.example/v1/quotes")!, subprotocols: ["quotes.v1"]) { socket in
        try await socket.send(#"{"subscribe":"EURUSD"}"#)
        for try await message in socket.messages {
            if case .text(let quote) = message { print(quote) }
        }
    }
    // example end
}

/// Sources/TransportSecurity/Certificates/PeerIdentity.swift
func peerIdentityExample(leaf: DERCertificate) async throws {
    // example begin
    let client = try PeerIdentity(certificate: leaf)
    let isPaymentsWorkload = client.spiffeID?.trustDomain == "payments.example"
    // example end
    _ = isPaymentsWorkload
}

/// Sources/TransportSecurity/Evaluators/ClientCertificateEvaluator.swift
func clientCertificateEvaluatorExample(meshCA: DERCertificate) async throws {
    // example begin
    let evaluator = ClientCertificateEvaluator(
        clientCAs: [meshCA],
        allowedNames: [try PeerNamePattern("spiffe://payments.example/ns/checkout/*")]
    )
    // example end
    _ = evaluator
}

/// Sources/TransportSecurity/Evaluators/ServerIdentityEvaluator.swift
func serverIdentityEvaluatorExample(meshBundle: [DERCertificate]) async throws {
    // example begin
    let session = SecureSession(configuration: SecureSessionConfiguration(tls: .init(
        trustEvaluator: ServerIdentityEvaluator(
            anchors: meshBundle,
            allowedNames: [try PeerNamePattern("spiffe://payments.example/ns/ledger/sa/api")]
        )
    )))
    // example end
    _ = session
}

/// Sources/TransportSecurity/Evaluators/ServerTrustManager.swift
func serverTrustManagerExample(pins: [SPKIPin]) async throws {
    // example begin
    let manager = try ServerTrustManager(evaluators: [
        "api.example.com": PublicKeysTrustEvaluator(pins: pins),
        "**.example.com": DefaultTrustEvaluator(),
    ])
    // example end
    _ = manager
}

/// Sources/TransportSecurity/Pins/SPKIPin.swift
func spkiPinExample() async throws {
    // example begin
    let pin = try SPKIPin("sha256/r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")
    // example end
    _ = pin
}

/// Sources/TransportSecurity/Policy/SecurityPolicy.swift
func securityPolicyExample(serverTrust: ServerTrust) async throws {
    // example begin
    let policy = try SecurityPolicy(pinningMode: .publicKey, certificatesInDirectory: "pins")
    let decision = await policy.evaluate(serverTrust, forDomain: "api.example.com")
    if !decision.isTrusted { print(decision) }   // which rule, what was checked, pins seen/expected
    // example end
}

/// Sources/TransportSecurity/ServerTrust/ServerTrust.swift
func serverTrustExample(presented: [DERCertificate], pinnedRoot: DERCertificate) async throws {
    // example begin
    var trust = ServerTrust(chain: presented, policy: .ssl("api.example.com"))
    trust.anchors = [pinnedRoot]          // only these are trusted (anchorsOnly defaults to true)
    let evaluation = await trust.evaluate()
    // example end
    _ = evaluation
}

/// Sources/TransportSecurityGRPC/CircuitBreakingInterceptor.swift
func circuitBreakingInterceptorExample(transport: HTTP2ClientTransport.Posix) async throws {
    // example begin
    let breaker = CircuitBreaker()   // the one the HTTP session has, to share the server's circuit
    try await withGRPCClient(
        transport: transport,
        interceptors: [CircuitBreakingInterceptor(breaker, host: "payments.partner.example", port: 443)]
    ) { client in /* the calls */ }
    // example end
}

/// Sources/TransportSecurityGRPC/HTTP2ClientTransport+Verified.swift
func verifiedClientTransportExample(policy: SecurityPolicy, passphrase: String) async throws {
    // example begin
    let verifier = PeerTrustVerifier(evaluator: policy, host: "payments.partner.example")
    let transport = try HTTP2ClientTransport.Posix(
        target: .dns(host: "payments.partner.example", port: 443),
        verifiedBy: verifier,
        identity: try ClientIdentity(pkcs12File: "client.p12", passphrase: passphrase)
    )
    try await withGRPCClient(transport: transport) { client in /* the calls */ }
    // example end
}

/// Sources/TransportSecurityGRPC/Health/GRPCHealthCheck.swift
func grpcHealthCheckExample(verifiedTransport: HTTP2ClientTransport.Posix) async throws {
    // example begin
    try await withGRPCClient(transport: verifiedTransport) { client in
        if try await GRPCHealthCheck.status(of: "payments.v1.Payments", through: client) != .serving {
            // Wait until it serves:
            let serves = try await GRPCHealthCheck.watch(of: "payments.v1.Payments", through: client) { statuses in
                for try await status in statuses where status == .serving { return true }
                return false   // the server ended the watch first
            }
            guard serves else { throw PaymentsUnavailable() }
        }
    }
    // example end
}

/// Sources/TransportSecurityGRPC/Health/GRPCHealthService.swift
func grpcHealthServiceExample(mutualTLSTransport: HTTP2ServerTransport.Posix) async throws {
    // example begin
    let health = GRPCHealthService()                       // the server as a whole: SERVING
    health.setStatus(.notServing, of: "payments.v1.Payments")   // until its database is reachable
    let server = GRPCServer(transport: mutualTLSTransport, services: [PaymentsService(), health])
    // … serving, until the process is told to stop:
    health.beginShutdown()   // every status NOT_SERVING, watchers told and their streams ended
    server.beginGracefulShutdown()
    // example end
}

/// Sources/TransportSecurityGRPC/OAuthCallCredentials.swift
func oauthCallCredentialsExample(tokens: SecureSession, transport: HTTP2ClientTransport.Posix) async throws {
    // example begin
    let credentials = try OAuthClientCredentials(
        tokenURL: URL(string: "https://auth.bank.example/oauth2/token")!,
        clientID: "partner-42", authentication: .mutualTLS, scopes: ["payments"],
        hosts: ["payments.bank.example"], tokenSession: tokens)
    try await withGRPCClient(transport: transport, interceptors: [OAuthCallCredentials(credentials)]) { client in /* the calls */ }
    // example end
}

/// Sources/TransportSecurityGRPC/OAuthCallCredentials.swift
func dpopCallCredentialsExample(credentials: OAuthClientCredentials) async throws {
    // example begin
    let bound = OAuthCallCredentials(credentials, server: URL(string: "https://payments.bank.example")!)
    // example end
    _ = bound
}

/// Sources/TransportSecurityGRPC/ServerTransportSecurity.swift
func serverTransportSecurityExample(bundle: [DERCertificate], serverIdentity: ClientIdentity) async throws {
    // example begin
    let clients = PeerTrustVerifier(
        evaluator: ClientCertificateEvaluator(clientCAs: bundle, allowedNames: [try PeerNamePattern("spiffe://prod.example/ns/payments/*")]),
        host: "clients"
    )
    let transport = HTTP2ServerTransport.Posix(
        address: .ipv4(host: "0.0.0.0", port: 8443),
        transportSecurity: try .verifyingClients(with: clients, presenting: serverIdentity)
    )
    // example end
    _ = transport
}

/// Sources/TransportSecurityGRPC/ServerTrustRejection.swift
func serverTrustRejectionExample(client: GRPCClient<HTTP2ClientTransport.Posix>) async throws {
    // example begin
    do {
        _ = try await GRPCHealthCheck.status(through: client)   // any call
    } catch let error as RPCError {
        if let rejection = error.cause as? ServerTrustRejection {
            print(rejection.decision.pinMismatch?.description ?? rejection.decision.reason)
        }
    }
    // example end
}

/// Sources/TransportSecurityNIO/Verification/PeerTrustVerifier+ValidatedChain.swift
func validatedChainExample(ca: DERCertificate, sslContext: NIOSSLContext, context: ChannelHandlerContext) async throws {
    // example begin
    let verifier = PeerTrustVerifier(evaluator: ClientCertificateEvaluator(clientCAs: [ca]), host: "clients")
    let handler = NIOSSLServerHandler(
        context: sslContext,
        customVerificationCallbackWithMetadata: verifier.makeVerificationCallbackWithMetadata()
    )
    // later, in a handler of that channel (its ChannelHandlerContext: context):
    let client = try context.pipeline.syncOperations.verifiedPeerIdentity()
    // example end
    _ = (handler, client)
}

/// Sources/TransportSecurityNIO/Verification/ChannelPipeline+VerifiedPeerIdentity.swift
func verifiedPeerIdentityExample(context: ChannelHandlerContext, verifier: PeerTrustVerifier) throws {
    // example begin
    let client = try context.pipeline.syncOperations.verifiedPeerIdentity(verifiedBy: verifier)   // nil: no certificate
    // example end
    _ = client
}

/// Sources/TransportSecurity/ServerTrust/TrustEvaluationOptions.swift
func trustEvaluationOptionsExample(presented: [DERCertificate]) async throws {
    // example begin
    var options = TrustEvaluationOptions()
    options.publicSuffixes = try PublicSuffixList(contentsOf: "public_suffix_list.dat")   // a newer list
    let trust = ServerTrust(chain: presented, policy: .ssl("api.example.com"), options: options)
    // example end
    _ = trust
}

/// Sources/TransportSecurityNIO/Verification/PeerTrustVerifier.swift
func peerTrustVerifierExample(policy: SecurityPolicy, context: NIOSSLContext) async throws {
    // example begin
    let verifier = PeerTrustVerifier(evaluator: policy, host: "api.example.com")
    let handler = try NIOSSLClientHandler(
        context: context,
        serverHostname: verifier.serverNameIndication,
        customVerificationCallback: verifier.makeVerificationCallback()
    )
    // example end
    _ = handler
}

/// Sources/TransportSecurity/TransportSecurity.docc/TransportSecurity.md
func transportSecurityArticleExample(presentedChain: [DERCertificate]) async throws {
    // example begin
    let pins = try CertificateLoader.certificates(atPath: "pins/root.pem")
    let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: pins)

    let trust = ServerTrust(chain: presentedChain, policy: .ssl("api.example.com"))
    let decision = await policy.evaluate(trust, forDomain: "api.example.com")
    if !decision.isTrusted {
        print(decision)   // which rule decided, what was checked, pins seen and expected
    }
    // example end
}

/// Sources/HTTPMessageSignatures/HTTPMessageSignatures.docc/HTTPMessageSignatures.md
func httpMessageSignaturesArticleExample(partnerKeyPEM: String, url: URL, fields: [(name: String, value: String)], body: Data) throws {
    // example begin
    let key = try HTTPSignatureVerificationKey(id: "partner-2026", pemEncoded: partnerKeyPEM)
    let verifier = HTTPMessageSignatureVerifier(keys: [key], requiredComponents: [.method, .targetURI, .field("content-digest")])
    let message = HTTPSignatureMessage.request(method: "POST", url: url, headers: fields, body: body)
    let verified = try verifier.verify(message)
    // example end
    _ = verified
}
