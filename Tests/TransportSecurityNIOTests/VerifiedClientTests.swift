import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import PKIBuilder
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO
import X509

/// The server side of mutual TLS after the handshake: the verifier hands swift-nio-ssl the path it
/// validated, the application reads who the client is from it, and a server allowing only some
/// client names refuses the others; against this library's client and against `openssl
/// s_client`.
@Suite("Verified clients: the validated path and the client's identity on the server")
struct VerifiedClientTests {
    let lab = try! TrustLab()

    /// A mesh: a root, an intermediate, and workloads with SPIFFE IDs issued by the intermediate.
    struct Mesh {
        let root: IssuedCertificate
        let intermediate: IssuedCertificate
        let checkout: IssuedCertificate
        let batch: IssuedCertificate
    }

    func mesh() throws -> Mesh {
        let root = try lab.pki.issueRoot(.certificateAuthority("Mesh Root"))
        let intermediate = try lab.pki.issue(.certificateAuthority("Mesh Issuer"), by: root)
        return Mesh(
            root: root,
            intermediate: intermediate,
            checkout: try lab.pki.issue(.client("checkout", uris: ["spiffe://payments.example/ns/checkout/sa/api"]), by: intermediate),
            batch: try lab.pki.issue(.client("batch", uris: ["spiffe://payments.example/ns/batch/sa/job"]), by: intermediate)
        )
    }

    func server(_ mesh: Mesh, allowedNames: [PeerNamePattern] = [], cache: DecisionCache? = nil, remembersResumedPeers: Bool = true) async throws -> TLSTestServer {
        let verifier = PeerTrustVerifier(
            evaluator: ClientCertificateEvaluator(clientCAs: [mesh.root.der], allowedNames: allowedNames),
            host: "clients",
            systemStore: .empty,
            evaluationTime: lab.pki.now,
            cache: cache
        )
        return try await TLSTestServer(chain: lab.chain(.legitimate), clientVerifier: verifier, handsOnValidatedChain: true, remembersResumedPeers: remembersResumedPeers)
    }

    var serverVerifier: PeerTrustVerifier {
        PeerTrustVerifier(
            evaluator: SecurityPolicy.default,
            host: lab.host,
            systemStore: TrustStore(lab.systemRoots.map(\.der), origin: "lab system store"),
            evaluationTime: lab.pki.now,
            cache: nil
        )
    }

    func identity(_ workload: IssuedCertificate, _ mesh: Mesh) throws -> ClientIdentity {
        try ClientIdentity(certificateChainPEM: [workload, mesh.intermediate].pemBundle, privateKeyPEM: workload.privateKeyPEM)
    }

    /// What the server echoes to `workload`: its SPIFFE ID and the validated path, to the root it
    /// was never sent.
    func echo(to workload: IssuedCertificate, _ mesh: Mesh) -> String {
        "\(try! PeerIdentity(certificate: workload.der))|"
            + [workload, mesh.intermediate, mesh.root].map(\.der.subjectSummary).joined(separator: " > ") + ":ping"
    }

    @Test("the application reads the client's identity and the whole validated path, anchor included, on every handshake (cache hits too)")
    func validatedChainHandedOn() async throws {
        let mesh = try mesh()
        let server = try await server(mesh, cache: DecisionCache())
        for _ in 0..<2 {
            let outcome = try await connect(port: server.port, verifier: serverVerifier, identity: identity(mesh.checkout, mesh))
            #expect(outcome.echoed == echo(to: mesh.checkout, mesh))
        }
        await server.stop()
        #expect(echo(to: mesh.checkout, mesh).hasPrefix("spiffe://payments.example/ns/checkout/sa/api|"))
    }

    @Test("a server allowing one namespace's SPIFFE IDs lets its workloads in and refuses the others at the handshake")
    func allowedNamesOnTheServer() async throws {
        let mesh = try mesh()
        let server = try await server(mesh, allowedNames: [try PeerNamePattern("spiffe://payments.example/ns/checkout/*")])
        let checkout = try await connect(port: server.port, verifier: serverVerifier, identity: identity(mesh.checkout, mesh))
        let batch = try await connect(port: server.port, verifier: serverVerifier, identity: identity(mesh.batch, mesh))
        await server.stop()
        #expect(checkout.echoed == echo(to: mesh.checkout, mesh))
        #expect(batch.echoed == nil, "a workload of another namespace gets no data through")
        #expect(batch.closed)
    }

    @Test("an evaluator that trusts without validating hands on no chain, never the certificates merely presented: the client's identity is unknown, not anonymous")
    func noValidatedPathNoChain() async throws {
        let mesh = try mesh()
        let verifier = PeerTrustVerifier(evaluator: InsecureDisabledTrustEvaluator(), host: "clients", systemStore: .empty, cache: nil)
        let server = try await TLSTestServer(chain: lab.chain(.legitimate), clientVerifier: verifier, handsOnValidatedChain: true)
        let outcome = try await connect(port: server.port, verifier: serverVerifier, identity: identity(mesh.checkout, mesh))
        // Without a certificate at all (a server that lets clients in without one), anonymous.
        let optional = try await TLSTestServer(chain: lab.chain(.legitimate), clientVerifier: verifier, clientCertificates: .optional, handsOnValidatedChain: true)
        let anonymous = try await connect(port: optional.port, verifier: serverVerifier)
        await server.stop()
        await optional.stop()
        #expect(outcome.echoed == "unknown:ping")
        #expect(anonymous.echoed == "unverified:ping")
    }

    @Test("openssl s_client as the client: an allowed workload is told who it is, another is refused")
    func opensslClient() async throws {
        let mesh = try mesh()
        let server = try await server(mesh, allowedNames: [try PeerNamePattern("spiffe://payments.example/ns/checkout/sa/api")])
        let directory = NSTemporaryDirectory() + "tsec-verified-client-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try lab.root.pemString.write(toFile: "\(directory)/root.pem", atomically: true, encoding: .utf8)
        func run(_ workload: IssuedCertificate) throws -> String {
            try workload.pemString.write(toFile: "\(directory)/leaf.pem", atomically: true, encoding: .utf8)
            try mesh.intermediate.pemString.write(toFile: "\(directory)/intermediate.pem", atomically: true, encoding: .utf8)
            try workload.privateKeyPEM.write(toFile: "\(directory)/key.pem", atomically: true, encoding: .utf8)
            // s_client sends "ping", prints what comes back, and leaves two seconds later.
            return (try? shell(
                "(echo ping; sleep 2) | openssl s_client -connect 127.0.0.1:\(server.port) -servername \(lab.host) "
                    + "-CAfile \(directory)/root.pem -cert \(directory)/leaf.pem -cert_chain \(directory)/intermediate.pem -key \(directory)/key.pem -quiet -no_ign_eof 2>/dev/null"
            )) ?? ""
        }
        let allowed = try run(mesh.checkout)
        let refused = try run(mesh.batch)
        await server.stop()
        #expect(allowed.contains(echo(to: mesh.checkout, mesh)), "\(allowed)")
        #expect(!refused.contains("ping"), "the refused workload gets nothing back: \(refused)")
    }

    @Test(
        "a client resuming its TLS session (openssl s_client -sess_out, then -sess_in; TLS 1.2 and 1.3), which runs no verification, is known by the path the verifier trusted for it; without the verifier its identity is unknown, never anonymous",
        arguments: [true, false]
    )
    func resumedSessions(remembered: Bool) async throws {
        let mesh = try mesh()
        let server = try await server(mesh, allowedNames: [try PeerNamePattern("spiffe://payments.example/ns/checkout/sa/api")], remembersResumedPeers: remembered)
        let directory = NSTemporaryDirectory() + "tsec-resumption-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try lab.root.pemString.write(toFile: "\(directory)/root.pem", atomically: true, encoding: .utf8)
        try mesh.checkout.pemString.write(toFile: "\(directory)/leaf.pem", atomically: true, encoding: .utf8)
        try mesh.intermediate.pemString.write(toFile: "\(directory)/intermediate.pem", atomically: true, encoding: .utf8)
        try mesh.checkout.privateKeyPEM.write(toFile: "\(directory)/key.pem", atomically: true, encoding: .utf8)
        for version in ["-tls1_2", "-tls1_3"] {
            let client = "openssl s_client \(version) -connect 127.0.0.1:\(server.port) -servername \(lab.host) -CAfile \(directory)/root.pem "
                + "-cert \(directory)/leaf.pem -cert_chain \(directory)/intermediate.pem -key \(directory)/key.pem"
            // s_client sends "ping", prints what comes back, and leaves two seconds later.
            let first = (try? await shellOffPool("(echo ping; sleep 2) | \(client) -quiet -no_ign_eof -sess_out \(directory)/session\(version).pem 2>/dev/null")) ?? ""
            #expect(first.contains(echo(to: mesh.checkout, mesh)), "\(version): \(first)")
            // Offering the saved session, the client resumes it (swift-nio-ssl offers no way to
            // refuse resumption) and no verification runs.
            let second = (try? await shellOffPool("(echo ping; sleep 2) | \(client) -no_ign_eof -sess_in \(directory)/session\(version).pem 2>&1")) ?? ""
            #expect(second.contains("Reused, TLSv1."), "\(version): \(second)")
            if remembered {
                #expect(second.contains(echo(to: mesh.checkout, mesh)), "\(version): the verifier vouches for the peer it trusted: \(second)")
            } else {
                #expect(second.contains("unknown:ping"), "\(version): \(second)")
            }
            #expect(!second.contains("unverified:ping"), "\(version): never taken for an anonymous client")
        }
        await server.stop()
    }

    @Test("the verifier remembers only what it trusted with a validated path, and only while the decision may be reused")
    func rememberedPaths() async throws {
        let mesh = try mesh()
        let verifier = PeerTrustVerifier(
            evaluator: ClientCertificateEvaluator(clientCAs: [mesh.root.der]), host: "clients", systemStore: .empty, evaluationTime: lab.pki.now, cache: nil
        )
        let callback = verifier.makeVerificationCallbackWithMetadata()
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        func present(_ chain: [IssuedCertificate]) async throws -> NIOSSLVerificationResultWithMetadata {
            let promise = loop.makePromise(of: NIOSSLVerificationResultWithMetadata.self)
            callback(try chain.map { try NIOSSLCertificate(bytes: $0.derBytes, format: .der) }, promise)
            return try await promise.futureResult.get()
        }
        #expect(verifier.rememberedPath(forPeerCertificate: mesh.checkout.derBytes) == nil)
        _ = try await present([mesh.checkout, mesh.intermediate])
        #expect(verifier.rememberedPath(forPeerCertificate: mesh.checkout.derBytes) == [mesh.checkout, mesh.intermediate, mesh.root].map(\.der))
        // Past the leaf's expiry the decision may not be reused: nothing is vouched for.
        #expect(verifier.rememberedPath(forPeerCertificate: mesh.checkout.derBytes, at: mesh.checkout.certificate.notValidAfter) == nil)
        // A client refused is never remembered.
        let stranger = try lab.pki.issue(.client("stranger"), by: try lab.pki.issueRoot(.certificateAuthority("Stranger Root")))
        _ = try await present([stranger])
        #expect(verifier.rememberedPath(forPeerCertificate: stranger.derBytes) == nil)
    }

    /// The closure types Hummingbird's `TLSChannelConfiguration` and Vapor's server configuration
    /// hold: a callback that is not `@Sendable` cannot be stored in them under Swift 6.
    typealias FrameworkCallback = @Sendable ([NIOSSLCertificate], EventLoopPromise<NIOSSLVerificationResult>) -> Void
    typealias FrameworkCallbackWithMetadata = @Sendable ([NIOSSLCertificate], EventLoopPromise<NIOSSLVerificationResultWithMetadata>) -> Void

    @Test("the callbacks are Sendable, as server frameworks store them, and decide when called from another task")
    func sendableCallbacks() async throws {
        let mesh = try mesh()
        let verifier = PeerTrustVerifier(
            evaluator: ClientCertificateEvaluator(clientCAs: [mesh.root.der]),
            host: "clients",
            systemStore: .empty,
            evaluationTime: lab.pki.now,
            cache: nil
        )
        let plain: FrameworkCallback = verifier.makeVerificationCallback()
        let withMetadata: FrameworkCallbackWithMetadata = verifier.makeVerificationCallbackWithMetadata()
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let presented = try [mesh.checkout, mesh.intermediate].map { try NIOSSLCertificate(bytes: $0.derBytes, format: .der) }
        let results = try await Task.detached {
            let first = loop.makePromise(of: NIOSSLVerificationResult.self)
            let second = loop.makePromise(of: NIOSSLVerificationResultWithMetadata.self)
            plain(presented, first)
            withMetadata(presented, second)
            return (try await first.futureResult.get(), try await second.futureResult.get())
        }.value
        #expect(results.0 == .certificateVerified)
        guard case .certificateVerified(let metadata) = results.1 else {
            Issue.record("the metadata callback refused a trusted client: \(results.1)")
            return
        }
        #expect(try metadata.validatedCertificateChain?.peerIdentity().spiffeID?.description == "spiffe://payments.example/ns/checkout/sa/api")
        #expect(metadata.validatedCertificateChain?.count == 3)
        // Vapor hands routes the same chain as swift-certificates' type.
        let asVaporHasIt = try X509.ValidatedCertificateChain(
            uncheckedCertificateChain: (metadata.validatedCertificateChain.map(Array.init) ?? []).map { try Certificate(derEncoded: $0.toDERBytes()) }
        )
        #expect(try asVaporHasIt.peerIdentity() == metadata.validatedCertificateChain?.peerIdentity())
    }
}
