import Foundation
import NIOCore
import NIOSSL
import PKIBuilder
import Testing
import TransportSecurity
import TransportSecurityNIO

@Suite("NIO bridge: verification callback against real TLS servers")
struct PeerTrustVerifierTests {
    let lab = try! TrustLab()
    var store: TrustStore { TrustStore(lab.systemRoots.map(\.der), origin: "lab system store") }

    func verifier(_ evaluator: any ServerTrustEvaluating, host: String? = nil, cache: DecisionCache? = nil) -> PeerTrustVerifier {
        PeerTrustVerifier(evaluator: evaluator, host: host ?? lab.host, systemStore: store, evaluationTime: lab.pki.now, cache: cache)
    }

    @Test("a trusted server completes the handshake and data flows")
    func trusted() async throws {
        let server = try await TLSTestServer(chain: lab.chain(.legitimate))
        let outcome = try await connect(port: server.port, verifier: verifier(SecurityPolicy.default))
        await server.stop()
        #expect(outcome.handshakeCompleted)
        #expect(outcome.echoed == "ping")
        #expect(outcome.decision?.isTrusted == true)
    }

    @Test("a rejection really closes the connection: no data flows")
    func rejected() async throws {
        let server = try await TLSTestServer(chain: lab.chain(.interceptingProxy))
        let pinned = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der])
        let outcome = try await connect(port: server.port, verifier: verifier(pinned))
        await server.stop()
        #expect(outcome.handshakeCompleted == false)
        #expect(outcome.echoed == nil)
        #expect(outcome.closed)
        #expect(outcome.decision?.rule == .publicKeyPinning)
        #expect(outcome.decision?.pinMismatch != nil)
    }

    @Test("validatesDomainName = false really skips the hostname: swift-nio-ssl adds no check of its own")
    func noDomainValidation() async throws {
        let server = try await TLSTestServer(chain: lab.chain(.wrongHost))
        var relaxed = SecurityPolicy.default
        relaxed.validatesDomainName = false
        let accepted = try await connect(port: server.port, verifier: verifier(relaxed))
        let rejected = try await connect(port: server.port, verifier: verifier(SecurityPolicy.default))
        await server.stop()
        #expect(accepted.handshakeCompleted)
        #expect(accepted.echoed == "ping")
        #expect(rejected.handshakeCompleted == false)
        #expect(rejected.decision?.lastEvaluation?.failures.map(\.code) == [.hostnameMismatch])
    }

    @Test("a leaf whose IP SAN is the socket's peer address does not pass for another host name")
    func ipSubjectAltNameTrap() async throws {
        let leaf = try lab.pki.issue(.server("loopback", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]), by: lab.intermediate)
        let server = try await TLSTestServer(chain: [leaf, lab.intermediate])
        let asName = try await connect(port: server.port, verifier: verifier(SecurityPolicy.default, host: lab.host))
        let asAddress = try await connect(port: server.port, verifier: verifier(SecurityPolicy.default, host: "127.0.0.1"))
        await server.stop()
        #expect(asName.handshakeCompleted == false)
        #expect(asAddress.handshakeCompleted)
    }

    @Test("a cached decision completes the callback synchronously, without a task")
    func cacheHitIsSynchronous() async throws {
        let cache = DecisionCache()
        let verifier = verifier(SecurityPolicy.default, cache: cache)
        let server = try await TLSTestServer(chain: lab.chain(.legitimate))
        let first = try await connect(port: server.port, verifier: verifier)
        #expect(first.handshakeCompleted)
        #expect(cache.statistics.hits == 0)
        let second = try await connect(port: server.port, verifier: verifier)
        await server.stop()
        #expect(second.handshakeCompleted)
        #expect(cache.statistics.hits == 1)

        // Directly: on a hit the completion runs before verify(_:completion:) returns.
        let certificates = try lab.chain(.legitimate).map { try NIOSSLCertificate(bytes: $0.derBytes, format: .der) }
        let answered = DecisionRecorder()
        verifier.verify(certificates, completion: answered.record)
        #expect(answered.last?.isTrusted == true)
    }

    @Test("an empty chain from the peer is a rejection, not a crash")
    func emptyPeerChain() async throws {
        let verifier = verifier(SecurityPolicy.default)
        let recorder = DecisionRecorder()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            verifier.verify([]) { decision in
                recorder.record(decision)
                continuation.resume()
            }
        }
        #expect(recorder.last?.isTrusted == false)
    }

    @Test("SNI is the host name, never an IP literal")
    func serverNameIndication() {
        #expect(verifier(SecurityPolicy.default, host: "API.example.test.").serverNameIndication == "api.example.test")
        #expect(verifier(SecurityPolicy.default, host: "127.0.0.1").serverNameIndication == nil)
        #expect(verifier(SecurityPolicy.default, host: "::1").serverNameIndication == nil)
    }
}
