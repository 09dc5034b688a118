import Foundation
import NIOSSL
import PKIBuilder
import Testing
import TransportSecurity
import TransportSecurityNIO

@Suite("Mutual TLS: client identities verified by the server with the same bridge")
struct MutualTLSTests {
    let lab = try! TrustLab()
    var store: TrustStore { TrustStore(lab.systemRoots.map(\.der), origin: "lab system store") }

    func serverVerifying(clientCA: IssuedCertificate, pins: [SPKIPin] = []) async throws -> TLSTestServer {
        let clientVerifier = PeerTrustVerifier(
            evaluator: ClientCertificateEvaluator(clientCAs: [clientCA.der], pins: pins),
            host: "client",
            systemStore: .empty,
            evaluationTime: lab.pki.now,
            cache: nil
        )
        return try await TLSTestServer(chain: lab.chain(.legitimate), clientVerifier: clientVerifier)
    }

    var serverVerifier: PeerTrustVerifier {
        PeerTrustVerifier(evaluator: SecurityPolicy.default, host: lab.host, systemStore: store, evaluationTime: lab.pki.now, cache: nil)
    }

    func identity(_ certificate: IssuedCertificate, chain: [IssuedCertificate] = []) throws -> ClientIdentity {
        try ClientIdentity(certificateChainPEM: ([certificate] + chain).pemBundle, privateKeyPEM: certificate.privateKeyPEM)
    }

    /// What a server verifying clients echoes to `client` (`nil`: an anonymous one).
    func echo(to client: IssuedCertificate?) -> String {
        "\(client?.der.subjectSummary ?? "anonymous"):ping"
    }

    @Test("a client with a certificate from the server's client CA gets through; data flows")
    func accepted() async throws {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let alice = try lab.pki.issue(.client("alice"), by: clientCA)
        let server = try await serverVerifying(clientCA: clientCA)
        let outcome = try await connect(port: server.port, verifier: serverVerifier, identity: identity(alice))
        await server.stop()
        #expect(outcome.handshakeCompleted)
        #expect(outcome.echoed == echo(to: alice))
    }

    @Test(
        "a server configured as Vapor takes it, with the verification callback forgotten, fails closed: BoringSSL holds no roots, so every client certificate is refused (an anonymous client gets through only where certificates are optional)",
        arguments: [ClientCertificateRequirement.required, .optional]
    )
    func forgottenCallbackFailsClosed(_ requirement: ClientCertificateRequirement) async throws {
        let serverIdentity = try identity(lab.leaf, chain: [lab.intermediate])
        let configuration = TLSConfiguration.transportSecurityServer(identity: serverIdentity, clientCertificates: requirement)
        #expect(configuration.trustRoots == .certificates([]), "not the machine's public CAs")
        #expect(configuration.additionalTrustRoots.isEmpty)
        // Vapor's shape: the configuration alone, its `customCertificateVerifyCallback` not set.
        let server = try await TLSTestServer(configuration: configuration)
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let alice = try lab.pki.issue(.client("alice"), by: clientCA)
        let withCertificate = try await connect(port: server.port, verifier: serverVerifier, identity: identity(alice))
        let anonymous = try await connect(port: server.port, verifier: serverVerifier)
        await server.stop()
        #expect(withCertificate.echoed == nil)
        #expect(withCertificate.closed)
        #expect((anonymous.echoed == "ping") == (requirement == .optional))
    }

    @Test("no client certificate, one from another CA, or one without clientAuth: the server refuses")
    func refused() async throws {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let otherCA = try lab.pki.issueRoot(.certificateAuthority("Other CA"))
        let stranger = try lab.pki.issue(.client("mallory"), by: otherCA)
        let serverOnly = try lab.pki.issue(.server("not-a-client.example.test"), by: clientCA)
        let server = try await serverVerifying(clientCA: clientCA)
        for clientIdentity in [nil, try identity(stranger), try identity(serverOnly)] {
            let outcome = try await connect(port: server.port, verifier: serverVerifier, identity: clientIdentity)
            #expect(outcome.echoed == nil, "identity \(clientIdentity?.leaf.subjectSummary ?? "none") must not get data through")
            #expect(outcome.closed)
        }
        await server.stop()
    }

    @Test("the server checks client certificates against its client CA's CRL: a revoked client is refused, the others get through; hard-fail without a current list refuses everyone")
    func revokedClients() async throws {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let alice = try lab.pki.issue(.client("alice"), by: clientCA)
        let mallory = try lab.pki.issue(.client("mallory"), by: clientCA)
        let now = lab.pki.now
        func server(crls: [CertificateRevocationList]) async throws -> TLSTestServer {
            let verifier = PeerTrustVerifier(
                evaluator: RevocationEvaluator(
                    ClientCertificateEvaluator(clientCAs: [clientCA.der]),
                    policy: RevocationPolicy(options: .crl, failureMode: .hard, crls: crls)
                ),
                host: "client",
                systemStore: .empty,
                evaluationTime: now,
                cache: nil
            )
            return try await TLSTestServer(chain: lab.chain(.legitimate), clientVerifier: verifier)
        }
        let list = try CertificateRevocationList(
            bytes: clientCA.revocationList(revoking: [mallory], thisUpdate: now.addingTimeInterval(-60), nextUpdate: now.addingTimeInterval(3_600))
        )
        let checking = try await server(crls: [list])
        #expect(try await connect(port: checking.port, verifier: serverVerifier, identity: identity(alice)).echoed == echo(to: alice))
        let revoked = try await connect(port: checking.port, verifier: serverVerifier, identity: identity(mallory))
        #expect(revoked.echoed == nil, "a revoked client must not get data through")
        #expect(revoked.closed)
        await checking.stop()

        let stale = try CertificateRevocationList(
            bytes: clientCA.revocationList(revoking: [], thisUpdate: now.addingTimeInterval(-7_200), nextUpdate: now.addingTimeInterval(-3_600))
        )
        let withoutCurrentList = try await server(crls: [stale])
        #expect(try await connect(port: withoutCurrentList.port, verifier: serverVerifier, identity: identity(alice)).echoed == nil)
        await withoutCurrentList.stop()
    }

    @Test("an identity provider is asked only when the server requests a certificate; nil or an error means none")
    func identityProvider() async throws {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let aliceCertificate = try lab.pki.issue(.client("alice"), by: clientCA)
        let alice = try identity(aliceCertificate)
        let asked = CallCounter()
        let presenting: ClientIdentityProvider = { serverName in
            asked.record(serverName)
            return alice
        }
        let requiring = try await serverVerifying(clientCA: clientCA)
        #expect(try await connect(port: requiring.port, verifier: serverVerifier, identityProvider: presenting).echoed == echo(to: aliceCertificate))
        #expect(asked.calls == [lab.host], "asked once, with the server name sent")
        let withholding = try await connect(port: requiring.port, verifier: serverVerifier, identityProvider: { _ in nil })
        #expect(withholding.echoed == nil)
        struct VaultLocked: Error {}
        let failing = try await connect(port: requiring.port, verifier: serverVerifier, identityProvider: { _ in throw VaultLocked() })
        #expect(!failing.handshakeCompleted)
        #expect(failing.closed)
        await requiring.stop()

        let notAsking = try await TLSTestServer(chain: lab.chain(.legitimate))
        #expect(try await connect(port: notAsking.port, verifier: serverVerifier, identityProvider: presenting).echoed == "ping")
        #expect(asked.calls.count == 1, "a server that does not request a certificate never causes a call")
        await notAsking.stop()
    }

    @Test("a server can pin its clients' keys")
    func pinnedClients() async throws {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let alice = try lab.pki.issue(.client("alice"), by: clientCA)
        let bob = try lab.pki.issue(.client("bob"), by: clientCA)
        let server = try await serverVerifying(clientCA: clientCA, pins: [alice.der.spkiPin])
        let aliceOutcome = try await connect(port: server.port, verifier: serverVerifier, identity: identity(alice))
        let bobOutcome = try await connect(port: server.port, verifier: serverVerifier, identity: identity(bob))
        await server.stop()
        #expect(aliceOutcome.echoed == echo(to: alice))
        #expect(bobOutcome.echoed == nil)
    }

    @Test("a server asking for optional client certificates lets anonymous clients through, tells trusted ones apart and still refuses untrusted ones")
    func optionalClientCertificates() async throws {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let otherCA = try lab.pki.issueRoot(.certificateAuthority("Other CA"))
        let alice = try lab.pki.issue(.client("alice"), by: clientCA)
        let mallory = try lab.pki.issue(.client("mallory"), by: otherCA)
        let serverOnly = try lab.pki.issue(.server("not-a-client.example.test"), by: clientCA)
        let clientVerifier = PeerTrustVerifier(
            evaluator: ClientCertificateEvaluator(clientCAs: [clientCA.der]),
            host: "client",
            systemStore: .empty,
            evaluationTime: lab.pki.now,
            cache: nil
        )
        let server = try await TLSTestServer(chain: lab.chain(.legitimate), clientVerifier: clientVerifier, clientCertificates: .optional)
        let asked = CallCounter()
        let anonymous = try await connect(port: server.port, verifier: serverVerifier, identityProvider: { serverName in
            asked.record(serverName)
            return nil
        })
        #expect(asked.calls == [lab.host], "the server asks for a certificate")
        #expect(anonymous.echoed == echo(to: nil))
        #expect(try await connect(port: server.port, verifier: serverVerifier, identity: identity(alice)).echoed == echo(to: alice))
        for untrusted in [mallory, serverOnly] {
            let outcome = try await connect(port: server.port, verifier: serverVerifier, identity: identity(untrusted))
            #expect(outcome.echoed == nil, "\(untrusted.der.subjectSummary) is presented, so it must be trusted to get through")
            #expect(outcome.closed)
        }
        await server.stop()
    }

    @Test("the client-certificate evaluator's decisions say why")
    func evaluatorDecisions() async throws {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let alice = try lab.pki.issue(.client("alice"), by: clientCA)
        let serverCert = try lab.pki.issue(.server("svc.example.test"), by: clientCA)
        let evaluator = ClientCertificateEvaluator(clientCAs: [clientCA.der])
        func trust(_ certificate: IssuedCertificate) -> ServerTrust {
            ServerTrust(chain: [certificate.der], policy: .sslClient, systemStore: .empty, evaluationTime: lab.pki.now)
        }
        #expect(await evaluator.evaluate(trust(alice), forHost: "ignored").isTrusted)
        let wrongUsage = await evaluator.evaluate(trust(serverCert), forHost: "ignored")
        #expect(wrongUsage.lastEvaluation?.failures.map(\.code) == [.extendedKeyUsage])
        #expect(wrongUsage.reason.contains("not for TLS clients"))
    }
}

/// Records the server names an identity provider was asked with.
final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var names: [String?] = []
    func record(_ name: String?) { lock.withLock { names.append(name) } }
    var calls: [String?] { lock.withLock { names } }
}
