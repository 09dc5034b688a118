#if GRPC
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import PKIBuilder
import TestServers
import Testing
import TransportSecurity
import TransportSecurityGRPC
import TransportSecurityNIO

/// The same transports against gRPC's C core (Debian's python3-grpcio, installed by `.ci/run`):
/// `Tests/Fixtures/grpc-echo/server.py` as the server, `client.py` as the client. The C core
/// checks certificates at the present time, so this lab is issued around it.
@Suite("gRPC: gRPC's C core (python3-grpcio) as the independent peer")
struct GRPCCoreInteropTests {
    let lab = try! TrustLab(pki: PKI(now: Date()))
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "tsec-grpc-core-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/grpc-echo").path

    /// Writes `text` as `name` in the test's folder and answers its path.
    func write(_ name: String, _ text: String) throws -> String {
        let path = "\(folder)/\(name)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `server.py` presenting the lab's legitimate chain, requiring client certificates from
    /// `clientCA` when given.
    func coreServer(clientCA: IssuedCertificate? = nil) throws -> ServerProcess {
        let chain = try write("chain.pem", lab.chain(.legitimate).pemBundle)
        let key = try write("key.pem", lab.chain(.legitimate)[0].privateKeyPEM)
        let clientCAFile = try clientCA.map { try write("client-ca.pem", $0.pemString) }
        return try ServerProcess("/usr/bin/python3") { port in ["\(Self.fixtures)/server.py", chain, key, "\(port)"] + (clientCAFile.map { [$0] } ?? []) }
    }

    @Test("grpc-swift with a pinned verifier and a client certificate calls a C-core server requiring client certificates; a wrong pin never sends the RPC")
    func swiftClientCoreServer() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mesh = try Mesh(lab)
        let server = try coreServer(clientCA: mesh.root)
        defer { server.stop() }
        let identity = try identity([mesh.checkout])

        let pinned = lab.serverVerifier(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.intermediate.der]))
        let answer = try await echo(verifiedTransport(port: server.port, pinned, identity: identity))
        #expect(answer == "python[checkout]:ping", "the C core checked the client certificate and read its name")

        let log = DecisionLog()
        let wrongPin = lab.serverVerifier(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.selfSigned.der]))
        let refused = await rpcErrorCode { try await echo(verifiedTransport(port: server.port, wrongPin, identity: identity, onDecision: log.record)) }
        #expect(refused == .unavailable)
        #expect(log.decisions.map(\.isTrusted) == [false])
        #expect(log.decisions.first?.pinMismatch != nil)
    }

    @Test("closing a client does not wait for the close_notify the C core never sends, where grpc-swift's own TLS waits five seconds")
    func closingWithoutCloseNotify() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try coreServer()
        defer { server.stop() }
        let clock = ContinuousClock()

        var answer = ""
        let verified = try await clock.measure {
            answer = try await echo(verifiedTransport(port: server.port, lab.serverVerifier(.default)))
        }
        var theirs = ""
        let grpcTLS = try await clock.measure {
            theirs = try await echo(grpcTLSTransport(port: server.port, authority: lab.host, .tls { tls in
                tls.trustRoots = .certificates([.bytes(Array(lab.root.pemString.utf8), format: .pem)])
            }))
        }
        #expect(answer == "python:ping")
        #expect(theirs == "python:ping")
        #expect(verified < .milliseconds(2500), "the call and the close took \(verified)")
        #expect(grpcTLS >= .milliseconds(4500), "grpc-swift's TLS closed in \(grpcTLS): if it no longer waits, this test's reason is gone")
    }

    @Test("a C-core client with a certificate of an allowed workload is served and named; another workload's is refused at the handshake")
    func coreClientSwiftServer() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mesh = try Mesh(lab)
        let server = try await EchoServer(.verifyingClients(
            with: mesh.clientVerifier(lab, allowing: ["spiffe://payments.example/ns/checkout/sa/api"]),
            presenting: identity(lab.chain(.legitimate))
        ))
        let ca = try write("ca.pem", lab.root.pemString)
        func call(as workload: IssuedCertificate) throws -> String {
            let chain = try write("\(workload.der.subjectSummary).pem", workload.pemString)
            let key = try write("\(workload.der.subjectSummary).key", workload.privateKeyPEM)
            return try shell("/usr/bin/python3 \(Self.fixtures)/client.py \(server.port) \(ca) \(lab.host) '\(chain)' '\(key)' ping")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let checkout = try call(as: mesh.checkout)
        let batch = try call(as: mesh.batch)
        await server.stop()

        #expect(checkout == "spiffe://payments.example/ns/checkout/sa/api|ping")
        #expect(batch == "error:UNAVAILABLE")
        #expect(server.service.calls == 1)
    }

    @Test("a C-core client resuming its TLS session (a session cache shared by three channels) is known through the server's verifier, which vouches for the peer it trusted; without it the client is unknown, never anonymous", arguments: [true, false])
    func resumingCoreClient(vouched: Bool) async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mesh = try Mesh(lab)
        let verifier = try mesh.clientVerifier(lab, allowing: ["spiffe://payments.example/ns/checkout/sa/api"])
        let server = try await EchoServer(.verifyingClients(with: verifier, presenting: identity(lab.chain(.legitimate))), verifier: vouched ? verifier : nil)
        let ca = try write("ca.pem", lab.root.pemString)
        let chain = try write("checkout.pem", mesh.checkout.pemString)
        let key = try write("checkout.key", mesh.checkout.privateKeyPEM)
        let answers = try await shellOffPool("/usr/bin/python3 \(Self.fixtures)/resuming_client.py \(server.port) \(ca) \(lab.host) '\(chain)' '\(key)' ping 3")
            .split(separator: "\n").map(String.init)
        await server.stop()
        let named = "spiffe://payments.example/ns/checkout/sa/api|ping"
        #expect(answers.first == named, "the first connection is verified: \(answers)")
        #expect(answers.count == 3)
        if vouched {
            #expect(answers.allSatisfy { $0 == named }, "\(answers)")
        } else {
            // The later connections resumed: no verification ran, and no verifier vouched.
            #expect(answers.dropFirst().allSatisfy { $0 == "unknown|ping" }, "\(answers)")
        }
        #expect(!answers.contains("anonymous|ping"))
    }
}
#endif
