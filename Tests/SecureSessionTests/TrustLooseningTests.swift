import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

/// What may never loosen the session's trust, tried against real TLS servers: transport rules
/// that enforce ATS cannot be undone by an evaluator that does not validate, nor do rules lower
/// the TLS floor; and a challenge handler's answer is never cached, however rules or pin sets
/// wrap it.
@Suite("Nothing loosens trust: enforced ATS, the TLS floor, handlers' answers")
struct TrustLooseningTests {
    let lab = try! TrustLab()

    func rules(_ dictionary: [String: Any]) throws -> TransportSecurityConfiguration {
        let (rules, issues) = try TransportSecurityConfiguration.load(from: JSONSerialization.data(withJSONObject: dictionary))
        #expect(issues.isEmpty, "\(issues)")
        return rules
    }

    /// A self-signed man in the middle for 127.0.0.1, served by `openssl s_server`.
    func selfSignedServer() throws -> OpenSSLServer {
        try OpenSSLServer(chain: [try lab.pki.issueSelfSigned(.server("mitm", ipAddresses: ["127.0.0.1"]))])
    }

    @Test(
        "under enforced ATS a self-signed man in the middle stays out, whatever trusts it: allowInvalidCertificates, a disabled evaluator, a handler's useCredential",
        arguments: ["allow-invalid", "disabled", "handler"]
    )
    func enforcedATS(_ loosening: String) async throws {
        let mitm = try selfSignedServer()
        defer { mitm.stop() }
        let genuine = try OpenSSLServer(chain: try lab.loopbackChain())
        defer { genuine.stop() }
        // 127.0.0.1 is local: NSAllowsLocalNetworking = false puts it under ATS.
        let enforcing = try rules(["NSAllowsLocalNetworking": false])
        let permitting = try rules(["NSExceptionDomains": ["127.0.0.1": ["NSExceptionAllowsInsecureHTTPLoads": true]]])
        func session(_ rules: TransportSecurityConfiguration) -> SecureSession {
            lab.session(loosening == "allow-invalid" ? AnyServerTrustEvaluator(SecurityPolicy(pinningMode: .none, allowInvalidCertificates: true, validatesDomainName: false))
                : loosening == "disabled" ? AnyServerTrustEvaluator(InsecureDisabledTrustEvaluator()) : AnyServerTrustEvaluator(SecurityPolicy.default)) {
                $0.tls.transportRules = rules
                if loosening == "handler" { $0.features.challengeHandler = { _ in .useCredential(.serverTrust) } }
            }
        }
        let strict = session(enforcing)
        await #expect {
            _ = try await strict.get(mitm.url)
        } throws: { error in
            guard case .trustRejected(let decision)? = error.sessionFailureReason else { return false }
            return decision.decider == TransportRuleEvaluator.decider && decision.reason.contains("ATS is enforced for 127.0.0.1")
        }
        #expect(try await strict.get(genuine.url).statusCode == 200, "a chain that validates still gets through")
        await strict.shutdown()
        // An exception allowing insecure loads lets the app loosen trust for the domain.
        let loose = session(permitting)
        #expect(try await loose.get(mitm.url).statusCode == 200)
        await loose.shutdown()
    }

    @Test("rules never lower the TLS floor: a TLS 1.1 server is refused on the local network and under arbitrary loads, and reached only where an exception names TLS 1.1")
    func tlsFloor() async throws {
        let server = try OpenSSLServer(chain: try lab.loopbackChain(), options: ["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"])
        defer { server.stop() }
        for dictionary in [[:], ["NSAllowsArbitraryLoads": true], ["NSExceptionDomains": ["127.0.0.1": ["NSExceptionAllowsInsecureHTTPLoads": true]]]] as [[String: Any]] {
            let configuration = try rules(dictionary)
            #expect(configuration.rule(forHost: "127.0.0.1").minimumTLSVersion == .tls12, "\(dictionary)")
            let session = lab.session { $0.tls.transportRules = configuration }
            await #expect("\(dictionary)") {
                _ = try await session.get(server.url)
            } throws: { error in
                // A TLS failure, or, where an exception applies, a refusal by the rules naming it.
                error is SecureSessionError && "\(error)".contains("no TLS version in common")
            }
            await session.shutdown()
        }
        let lowered = try rules(["NSExceptionDomains": ["127.0.0.1": ["NSExceptionMinimumTLSVersion": "TLSv1.1"]]])
        let session = lab.session { $0.tls.transportRules = lowered }
        #expect(try await session.get(server.url).text.contains("Protocol  : TLSv1.1"))
        await session.shutdown()
    }

    @Test("a challenge handler is asked on every new connection, never answered from the decision cache, when transport rules or a pin-set registry wrap it")
    func handlerAnswersAreNotCached() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let registry = PinSetRegistry(
            publicKey: try PinUpdateSigningKey(generating: .ed25519).publicKey,
            builtIn: [DomainPinSet(key: DomainKey("127.0.0.1")!, pins: [lab.intermediate.der.spkiPin, SPKIPin(subjectPublicKeyInfoDER: Array("backup".utf8))])]
        )
        let wrappings: [(String, (inout SecureSessionConfiguration) -> Void)] = [
            ("transport rules", { $0.tls.transportRules = TransportSecurityConfiguration() }),
            ("a pin-set registry", { $0.tls.pinSetRegistry = registry }),
            ("both", { $0.tls.transportRules = TransportSecurityConfiguration(); $0.tls.pinSetRegistry = registry }),
        ]
        for (name, wrap) in wrappings {
            let asked = Counter()
            let cache = DecisionCache()
            let session = lab.session {
                $0.tls.decisionCache = cache
                $0.connections.idleTimeout = .milliseconds(1)
                $0.features.challengeHandler = { _ in
                    asked.increment()
                    return .useCredential(.serverTrust)
                }
                wrap(&$0)
            }
            for _ in 0..<3 {
                #expect(try await session.get(server.url("/hello")).text == "hello", "\(name)")
                // The idle connection is closed before the next request, which needs a new one.
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(asked.value == 3, "\(name): the handler was asked \(asked.value) times for 3 connections")
            await session.shutdown()
        }
        await server.stop()
    }
}

/// A count shared with a handler.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
