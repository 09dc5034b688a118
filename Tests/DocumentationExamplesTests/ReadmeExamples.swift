import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import HTTPMessageSignatures
import NIOSSL
import OpenAPIRuntime
import Reachability
import SecureSession
import SecureSessionOpenAPI
import TransportSecurity
import TransportSecurityGRPC
import TransportSecurityNIO
import X509

// The Swift examples of README.md and of the guides (the DocC articles), each between
// `example begin` and `example end` exactly as it is shown (its imports are above), so that the
// compiler checks them: an example that no longer compiles fails the build, and
// `DocumentationExamplesTests` fails when an example and its copy here differ. The functions are
// never called. What an example takes from its context
// (a policy, a passphrase) is a parameter; what it leaves unused is used after it.

// README.md, quick start (a).
// example begin
struct Quote: Decodable { let price: Double }

/// The partner's API, one per process.
final class PartnerAPI: Sendable {
    let session: SecureSession

    init() throws {
        session = SecureSession(configuration: SecureSessionConfiguration(
            baseURL: URL(string: "https://api.partner.example/v1/")!,
            tls: .init(trustEvaluator: PublicKeysTrustEvaluator(pins: [
                try SPKIPin("sha256/…"),   // their key today (quick start c prints it)
                try SPKIPin("sha256/…"),   // their backup key, for a rotation without an outage
            ]))
        ))
    }

    func quote(_ pair: String) async throws -> Quote {
        try await session.get("quotes/\(pair)").decode(Quote.self)
    }

    func shutdown() async { await session.shutdown() }
}
// example end

// README.md, quick start (b).
// example begin
struct Payment: Encodable { let amount: String, currency: String }
struct Receipt: Decodable { let id: String }

/// The session for the partner's payment API: make it once at start-up, shut it down at exit.
func makePaymentsSession() throws -> SecureSession {
    let partnerCA = try CertificateLoader.certificates(atPath: "/etc/partner/ca.pem")
    let passphrase = ProcessInfo.processInfo.environment["PARTNER_P12_PASSPHRASE"] ?? ""
    return SecureSession(configuration: SecureSessionConfiguration(tls: .init(
        trustEvaluator: SecurityPolicy(pinningMode: .certificate, pinnedCertificates: partnerCA),
        clientIdentity: try ClientIdentity(pkcs12File: "/etc/partner/client.p12", passphrase: passphrase),
        systemStore: TrustStore(partnerCA, origin: "partner CA")   // their CA is the only root
    )))
}

func pay(_ payment: Payment, through session: SecureSession) async throws -> Receipt {
    let url = URL(string: "https://payments.partner.example/v2/payments")!
    return try await session.json(.post, url, body: payment, as: Receipt.self)
}
// example end

func aSecurityPolicy() async throws {
    // example begin
    // AFSecurityPolicy: pinning mode, pinned certificates, allowInvalidCertificates, validatesDomainName.
    let pinned = try CertificateLoader.certificates(atPath: "pins/issuing-ca.pem")
    var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: pinned)
    policy.validatesDomainName = true          // the default

    // Or the "default pinned certificates": every .cer .crt .der .pem file of a directory or bundle,
    // read once; a file that does not parse is an error, never silently dropped.
    let fromDirectory = try SecurityPolicy(pinningMode: .certificate, certificatesInDirectory: "pins")
    let fromBundle = try SecurityPolicy(pinningMode: .certificate, certificatesIn: .module, subdirectory: "pins")
    // example end
    _ = (fromDirectory, fromBundle)
}

func theSession(policy: SecurityPolicy, identity: ClientIdentity, item: Item, reportURL: URL) async throws {
    // example begin
    let session = SecureSession(configuration: SecureSessionConfiguration(tls: .init(
        trustEvaluator: policy,                 // a SecurityPolicy, evaluator or ServerTrustManager
        clientIdentity: identity                // optional: mutual TLS
    )))
    let me: User = try await session.get(URL(string: "https://api.example.com/me")!).decode(User.self)
    let created = try await session.json(.post, URL(string: "https://api.example.com/items")!, body: item, as: Item.self)
    _ = try await session.download(SecureRequest(url: reportURL), to: "/tmp/report.pdf")
    await session.shutdown()
    // example end
    _ = (me, created)
}

func cachingResponses(policy: SecurityPolicy, ratesURL: URL) async throws {
    // example begin
    var configuration = SecureSessionConfiguration(tls: .init(trustEvaluator: policy))
    configuration.responses.cache = ResponseCache(capacity: 32 << 20)   // shareable between sessions
    let session = SecureSession(configuration: configuration)

    let rates = try await session.get(ratesURL)           // from the server, kept
    let again = try await session.get(ratesURL)           // again.source == .cache while fresh
    var offline = SecureRequest(url: ratesURL)
    offline.cachePolicy = .returnCacheDataDontLoad        // nothing sent; throws .notCached(url) if none
    // example end
    _ = (rates, again, offline)
}

func oauthClientCredentials(idpPolicy: SecurityPolicy, apiPolicy: SecurityPolicy, identity: ClientIdentity) async throws {
    // example begin
    let tokens = SecureSession(configuration: .init(tls: .init(trustEvaluator: idpPolicy, clientIdentity: identity)))
    var configuration = SecureSessionConfiguration(tls: .init(trustEvaluator: apiPolicy, clientIdentity: identity))
    configuration.features.interceptor = try OAuthClientCredentials(
        tokenURL: URL(string: "https://auth.bank.example/oauth2/token")!,
        clientID: "partner-42", authentication: .mutualTLS,      // or .privateKeyJWT(key), .clientSecretBasic(secret:), …
        scopes: ["payments"], hosts: ["api.bank.example"], tokenSession: tokens)
    let api = SecureSession(configuration: configuration)
    let payment = try await api.get(URL(string: "https://api.bank.example/v1/payments/7")!)
    // example end
    _ = payment
}

func signingRequests() async throws {
    // example begin
    let key = try HTTPSignatureKey(id: "client-2026", pemEncoded: String(contentsOfFile: "signing-key.pem", encoding: .utf8))
    var configuration = SecureSessionConfiguration()
    configuration.features.interceptor = HTTPMessageSigner(key: key, covering: [.method, .targetURI, .field("content-type")])
    // Or with OAuth: ChainedInterceptor([credentials, signer]) signs the token too.
    // example end
    _ = configuration
}

func verifyingResponseSignatures(bankKeys: Data) async throws {
    var configuration = SecureSessionConfiguration()
    // example begin
    configuration.responses.signatures = ResponseSignatureRequirement(
        verifier: HTTPMessageSignatureVerifier(keys: try HTTPSignatureVerificationKey.keys(jwkSet: bankKeys), requiredComponents: [.status]),
        hosts: [try HostPattern("api.bank.example")]      // empty: every host
    )
    // example end
    _ = configuration
}

func openAPIClients(passphrase: String) async throws {
    // example begin
    let session = SecureSession(configuration: .init(tls: .init(
        trustEvaluator: PublicKeysTrustEvaluator(pins: [try SPKIPin("sha256/…")]),
        clientIdentity: try ClientIdentity(pkcs12File: "client.p12", passphrase: passphrase)
    )))
    let client = Client(serverURL: try Servers.server1(), transport: SecureSessionTransport(session: session))
    // example end
    _ = client
}

func webSockets(session: SecureSession) async throws {
    // example begin
    try await session.webSocket(URL(string: "wss://stream.partner.example/v1/quotes")!,
                                headers: [(name: "Authorization", value: "Bearer …")],
                                subprotocols: ["quotes.v1"]) { socket in
        try await socket.send(#"{"subscribe":"EURUSD"}"#)          // or bytes
        for try await message in socket.messages {                 // .text(String) / .binary([UInt8])
            if case .text(let quote) = message { print(quote) }
        }
        // socket.closeReceived: the server's close code and reason, once messages has ended
    }   // closed with 1000 when the block returns, 1001 when it throws; socket.close(code:reason:) before
    // example end
}

func aClientIdentity(policy: SecurityPolicy, passphrase: String) async throws {
    // example begin
    let identity = try ClientIdentity(pkcs12File: "client.p12", passphrase: passphrase)
    // or: ClientIdentity(pkcs12: bytes, passphrase:), ClientIdentity(pkcs12Base64: text, passphrase:),
    //     ClientIdentity(certificateFile: "client.pem", privateKeyFile: "client.key", passphrase: nil)

    let session = SecureSession(configuration: SecureSessionConfiguration(tls: .init(trustEvaluator: policy, clientIdentity: identity)))
    // example end
    _ = session
}

func aClientIdentityRenewedOnDisk(policy: SecurityPolicy, passphrase: String) async throws {
    // example begin
    var configuration = SecureSessionConfiguration(tls: .init(trustEvaluator: policy))
    configuration.tls.clientIdentityFile = try ClientIdentityFile(pkcs12File: "/etc/partner/client.p12", passphrase: passphrase)
    // or: ClientIdentityFile(certificateFile: "/var/run/secrets/tls/tls.crt", privateKeyFile: "/var/run/secrets/tls/tls.key")
    //     ClientIdentityFile(pkcs12File: "/var/run/secrets/partner/client.p12", passphraseFile: "/var/run/secrets/partner/passphrase")
    // example end
    _ = configuration
}

func aServerTrustAndADecision(policy: SecurityPolicy) async throws {
    // example begin
    let chain = try CertificateLoader.certificates(atPath: "presented-chain.pem")   // leaf first
    let trust = ServerTrust(chain: chain, policy: .ssl("api.example.com"))

    let decision = await policy.evaluate(trust, forDomain: "api.example.com")
    let trusted = decision.isTrusted            // Bool
    let rule = decision.rule                    // .publicKeyPinning — which of the six rules decided
    let checks = decision.checks                // every evaluation made on the way, with typed failures
    let mismatch = decision.pinMismatch         // on a pin failure: the pins presented and expected, as OkHttp prints them
    let reusableUntil = decision.reusableUntil  // with revocation: the earliest nextUpdate of the answers it relied on
    let provisional = decision.isProvisional    // with revocation soft-fail: let through without an answer
    // example end
    _ = (trusted, rule, checks, mismatch, reusableUntil, provisional)
}

func evaluatorsPerHost(policy: SecurityPolicy, pinned: [DERCertificate], trust: ServerTrust) async throws {
    // example begin
    let manager = try ServerTrustManager(evaluators: [
        "api.example.com": PublicKeysTrustEvaluator(pins: [try SPKIPin("sha256/…"), try SPKIPin("sha256/…backup…")]),
        "*.cdn.example.com": PinnedCertificatesTrustEvaluator(certificates: pinned),
        "**.example.com": DefaultTrustEvaluator(),
        "legacy.example.com": policy,                 // a SecurityPolicy is an evaluator too
    ])
    let decision = await manager.evaluate(trust, forHost: "api.example.com")
    // example end
    _ = decision
}

func fetchingMissingIntermediates() async throws {
    // example begin
    let fetcher = SessionIssuerFetcher(session: SecureSession())   // a session of its own
    let evaluator = IntermediateFetchingEvaluator(SecurityPolicy.default, fetcher: fetcher)
    // example end
    _ = evaluator
}

func cachingDecisions(manager: ServerTrustManager, trust: ServerTrust, host: String) async throws {
    // example begin
    let cached = CachingTrustEvaluator(manager)                  // DecisionCache.shared
    let hit = cached.cachedDecision(for: trust, forHost: host)   // synchronous: no task hop on a hit
    // example end
    _ = hit
}

func tlsWithSwiftNIO(policy: SecurityPolicy, passphrase: String) async throws {
    // example begin
    let verifier = PeerTrustVerifier(evaluator: policy, host: "api.example.com")   // any evaluator
    let identity = try ClientIdentity(pkcs12File: "client.p12", passphrase: passphrase)   // optional
    let context = try NIOSSLContext(configuration: .transportSecurityClient(identity: identity))
    let handler = try NIOSSLClientHandler(
        context: context,
        serverHostname: verifier.serverNameIndication,          // nil for IP literals
        customVerificationCallback: verifier.makeVerificationCallback { decision in /* keep it */ }
    )
    // example end
    _ = handler
}

func gRPC(policy: SecurityPolicy, passphrase: String, credentials: OAuthClientCredentials, dpopCredentials: OAuthClientCredentials, meshBundle: [DERCertificate], serverIdentity: ClientIdentity) async throws {
    // example begin
    // A client: the partner's server validated, pinned and named by the policy; a client certificate.
    let verifier = PeerTrustVerifier(evaluator: policy, host: "payments.partner.example")
    let transport = try HTTP2ClientTransport.Posix(
        target: .dns(host: "payments.partner.example", port: 443),
        verifiedBy: verifier,
        identity: try ClientIdentity(pkcs12File: "client.p12", passphrase: passphrase),   // or identityFile: (renewed on disk)
        onDecision: { decision in /* a rejection: why, with the pins seen and expected */ }
    )
    // OAuth 2.0 client credentials on every call (an OAuthClientCredentials), such as
    // a Google Cloud service account's: OAuthClientCredentials(serviceAccount:scopes:hosts:tokenSession:).
    let tokens = OAuthCallCredentials(credentials)
    // DPoP-bound tokens: the proofs name the server, which interceptors are not told.
    let bound = OAuthCallCredentials(dpopCredentials, server: URL(string: "https://payments.bank.example")!)

    try await withGRPCClient(transport: transport, interceptors: [tokens]) { client in   // or [bound]
        // gRPC's health check (grpc.health.v1.Health/Check; `tsec grpc-health` from a shell).
        if try await GRPCHealthCheck.status(of: "payments.v1.Payments", through: client) != .serving {
            // Watch: the status now, then each change, until the body returns or the server ends it.
            let serves = try await GRPCHealthCheck.watch(of: "payments.v1.Payments", through: client) { statuses in
                for try await status in statuses where status == .serving { return true }
                return false
            }
            guard serves else { throw PaymentsUnavailable() }
        }
        // the calls to the partner's services
    }

    // A server: only the clients the CA issued to with an allowed name; the service reads who called
    // (in a handler: `try context.peerIdentity()?.spiffeID`).
    let clients = PeerTrustVerifier(
        evaluator: ClientCertificateEvaluator(clientCAs: meshBundle, allowedNames: [try PeerNamePattern("spiffe://prod.example/ns/payments/*")]),
        host: "clients"
    )
    // gRPC's health service beside it (Check and Watch), for Kubernetes' gRPC probes and load balancers.
    let health = GRPCHealthService()                               // "" (the server as a whole): SERVING
    health.setStatus(.notServing, of: "payments.v1.Payments")       // until its database answers
    let server = GRPCServer(
        transport: HTTP2ServerTransport.Posix(
            address: .ipv4(host: "0.0.0.0", port: 8443),
            transportSecurity: try .verifyingClients(with: clients, presenting: serverIdentity)   // or a ClientIdentityFile
        ),
        services: [PaymentsService(), health]
    )
    // To stop: health.beginShutdown() (every status NOT_SERVING, watches ended), then server.beginGracefulShutdown().
    // example end
    _ = (bound, server)
}

func transportRules(policy: SecurityPolicy) async throws {
    // example begin
    let (rules, issues) = try TransportSecurityConfiguration.load(contentsOf: "Info.plist")   // XML, binary or JSON
    for issue in issues { print(issue) }            // "error: NSAppTransportSecurity.NSExceptionDomains.x.NSExceptionMinimumTLSVersion: …"
    print(rules.rule(forHost: "a.b.example.com"))
    // a.b.example.com (from exception example.com, includes subdomains): HTTPS only, TLS ≥ 1.2,
    // forward secrecy required, keys RSA ≥ 2048 / EC ≥ 256, signatures SHA-256 or better

    let session = SecureSession(configuration: SecureSessionConfiguration(tls: .init(trustEvaluator: policy, transportRules: rules)))
    // example end
    _ = session
}

func reachability() async throws {
    // example begin
    let monitor = ReachabilityMonitor(host: "api.example.com")   // or ReachabilityMonitor.shared (the system)
    monitor.setStatusChangeHandler { status in print(status.localizedDescription) }
    try monitor.startMonitoring()
    for await status in monitor.statusUpdates() {                   // current status, then every change
        if case .reachable(let interface) = status { print("via", interface.kind, interface.name) }
    }
    // example end
}

func signedPinUpdates(builtInPublicKeyPEM: String, builtInPinSets: [DomainPinSet], applicationSupport: String) async throws {
    // example begin
    let registry = PinSetRegistry(publicKey: try PinUpdatePublicKey(pemEncoded: builtInPublicKeyPEM),
                                  builtIn: builtInPinSets,                       // [DomainPinSet]
                                  store: PinUpdateStore(path: applicationSupport + "/pins.signed"))
    _ = try? registry.loadStored()                          // the last accepted document, verified again
    var configuration = SecureSessionConfiguration()
    configuration.tls.pinSetRegistry = registry                 // every new connection obeys the sets in force
    let session = SecureSession(configuration: configuration)
    let updates = PinSetUpdater(registry: registry, session: session,
                                documentURL: URL(string: "https://pins.example.com/pins.json")!).start()
    // example end
    _ = updates
}

func certificateTransparency() async throws {
    var configuration = SecureSessionConfiguration()
    // example begin
    let logs = try CTLogList(json: Data(contentsOf: URL(fileURLWithPath: "log_list.json")))  // Chrome's or Apple's list, v3
    let evaluator = CertificateTransparencyEvaluator(SecurityPolicy.default, policy: CertificateTransparencyPolicy(logList: logs))
    // or only where NSRequiresCertificateTransparency asks:
    configuration.tls.certificateTransparencyLogs = logs
    // example end
    _ = (evaluator, configuration)
}

func revocation() async throws {
    // example begin
    let fetcher = SessionRevocationFetcher(session: SecureSession())       // a session of its own
    let evaluator = RevocationEvaluator(SecurityPolicy.default,
                                        policy: RevocationPolicy(options: [.ocsp, .crl], failureMode: .soft,
                                                                 crls: [try CertificateRevocationList(contentsOfFile: "ca.crl")]),
                                        fetcher: fetcher)
    // example end
    _ = evaluator
}
