import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

/// A server known by the SPIFFE ID its certificate carries rather than by the host dialled: a
/// mesh workload whose X.509 SVID lists no DNS name and no address, reached at 127.0.0.1.
@Suite("Server identity: a server authorized by its SPIFFE ID")
struct ServerIdentityTests {
    let lab = try! TrustLab()

    /// The mesh's root and a server SVID for `ledger` (serverAuth and clientAuth, or clientAuth
    /// only; a SPIFFE ID, no DNS name, no address), issued by an intermediate.
    func meshServer(clientOnly: Bool = false) throws -> (root: IssuedCertificate, chain: [IssuedCertificate]) {
        let root = try lab.pki.issueRoot(.certificateAuthority("Mesh Root"))
        let issuer = try lab.pki.issue(.certificateAuthority("Mesh Issuer"), by: root)
        var profile = CertificateProfile.server("ledger", dnsNames: [])
        profile.uris = ["spiffe://payments.example/ns/ledger/sa/api"]
        profile.extendedKeyUsages = clientOnly ? [.clientAuth] : [.serverAuth, .clientAuth]
        return (root, [try lab.pki.issue(profile, by: issuer), issuer])
    }

    func evaluator(_ root: IssuedCertificate, _ names: [String]) throws -> ServerIdentityEvaluator {
        ServerIdentityEvaluator(anchors: [root.der], allowedNames: try names.map { try PeerNamePattern($0) })
    }

    /// The decision of a GET through `evaluator`, or `nil` when the request got through.
    func rejection(_ evaluator: ServerIdentityEvaluator, url: URL) async throws -> TrustDecision? {
        do {
            _ = try await lab.session(evaluator).get(url)
            return nil
        } catch let sessionError as SecureSessionError where sessionError.code == .trustRejected {
            return sessionError.trustDecision
        }
    }

    @Test("the session reaches a mesh server by its SPIFFE ID though its certificate names no host")
    func allowedServer() async throws {
        let mesh = try meshServer()
        let server = try await HTTPTestServer(chain: mesh.chain)
        let session = lab.session(try evaluator(mesh.root, ["spiffe://payments.example/ns/ledger/*"]))
        let response = try await session.get(server.url("/target/balance"))
        #expect(response.statusCode == 200)
        #expect(response.text == "/target/balance")
        #expect(try await rejection(evaluator(mesh.root, ["spiffe://payments.example/ns/ledger/sa/api"]), url: server.url("/target/balance")) == nil)
        await server.stop()
    }

    @Test("another workload's ID, the host-name policy, another bundle or a client-only certificate: refused, saying why")
    func refusedServers() async throws {
        let mesh = try meshServer()
        let server = try await HTTPTestServer(chain: mesh.chain)
        let url = server.url("/target/balance")
        let wrongID = try #require(try await rejection(evaluator(mesh.root, ["spiffe://payments.example/ns/checkout/*"]), url: url))
        #expect(wrongID.reason.contains("the server certificate (CN=ledger) carries none of the allowed names"))
        #expect(wrongID.reason.contains("it names CN=ledger, URI:spiffe://payments.example/ns/ledger/sa/api"))
        let otherBundle = try #require(try await rejection(evaluator(lab.root, ["spiffe://payments.example/ns/ledger/*"]), url: url))
        #expect(!otherBundle.checks.contains { $0.name == "server name" }, "no name check for a chain that does not validate")
        let noNames = try #require(try await rejection(ServerIdentityEvaluator(anchors: [mesh.root.der], allowedNames: []), url: url))
        #expect(noNames.reason.contains("needs at least one"))
        await server.stop()

        let clientOnly = try meshServer(clientOnly: true)
        let clientServer = try await HTTPTestServer(chain: clientOnly.chain)
        let wrongUsage = try #require(try await rejection(evaluator(clientOnly.root, ["spiffe://payments.example"]), url: clientServer.url("/")))
        #expect(wrongUsage.lastEvaluation?.failures.map(\.code) == [.extendedKeyUsage])
        await clientServer.stop()
    }
}
