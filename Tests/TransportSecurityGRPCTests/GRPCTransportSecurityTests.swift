#if GRPC
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import NIOSSL
import PKIBuilder
import TestServers
import Testing
import TransportSecurity
import TransportSecurityGRPC
import TransportSecurityNIO

/// gRPC calls over pinned and mutual TLS: grpc-swift 2's HTTP/2 transports with the handshake
/// decided by a TransportSecurity verifier, against grpc-swift's own server and client and
/// against gRPC's C core (Debian's python3-grpcio) as an independent peer.
@Suite("gRPC: pinned and mutual TLS through grpc-swift's transports")
struct GRPCTransportSecurityTests {
    let lab = try! TrustLab()

    @Test("a pinned client calls a server whose key is pinned, and fails before any RPC against another key, told which pins were seen and expected")
    func pinnedClient() async throws {
        let server = try await EchoServer(presenting: lab.chain(.legitimate))
        let log = DecisionLog()
        let pinned = lab.serverVerifier(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der]))
        let answer = try await echo(verifiedTransport(port: server.port, pinned, onDecision: log.record))

        let wrongPin = lab.serverVerifier(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.rogueRoot.der]))
        let refused = await rpcError { try await echo(verifiedTransport(port: server.port, wrongPin, onDecision: log.record)) }
        await server.stop()

        #expect(answer == "anonymous|ping")
        #expect(refused?.code == .unavailable)
        // The RPC's error says why, as the decision: not swift-nio-ssl's CERTIFICATE_VERIFY_FAILED.
        let cause = try #require(refused?.cause as? ServerTrustRejection, "cause: \(String(describing: refused?.cause))")
        #expect(cause.decision.pinMismatch?.expected.map(\.pin) == [lab.rogueRoot.der.spkiPin])
        #expect("\(cause)".hasPrefix("the server api.example.test was rejected: no certificate of the chain carries a pinned public key"))
        #expect(server.service.calls == 1, "the refused client sent no RPC")
        let decisions = log.decisions
        #expect(decisions.first?.isTrusted == true)
        let rejection = try #require(decisions.last)
        #expect(!rejection.isTrusted)
        #expect(rejection.pinMismatch?.expected.map(\.pin) == [lab.rogueRoot.der.spkiPin])
        #expect(rejection.pinMismatch?.presented.map(\.pin).contains(lab.root.der.spkiPin) == true)
    }

    @Test("the policy owns the host check: validatesDomainName = false reaches a server named otherwise; grpc-swift's default verification would check the host again after the callback")
    func hostCheckOwnedByThePolicy() async throws {
        let server = try await EchoServer(presenting: lab.chain(.wrongHost))
        let log = DecisionLog()
        let checksHost = await rpcErrorCode { try await echo(verifiedTransport(port: server.port, lab.serverVerifier(), onDecision: log.record)) }
        let withoutHost = lab.serverVerifier(SecurityPolicy(pinningMode: .none, validatesDomainName: false))
        let answer = try await echo(verifiedTransport(port: server.port, withoutHost, onDecision: log.record))
        // The same callback on grpc-swift's defaults (`.fullVerification`): swift-nio-ssl's own
        // host check runs after it and refuses what the policy trusted.
        let onDefaults = await rpcErrorCode {
            try await echo(grpcTLSTransport(port: server.port, authority: lab.host, .tls { tls in
                tls.trustRoots = .certificates([])
                tls.customVerificationCallback = withoutHost.makeVerificationCallbackWithMetadata(onDecision: log.record)
            }))
        }
        await server.stop()

        #expect(checksHost == .unavailable)
        #expect(answer == "anonymous|ping")
        #expect(onDefaults == .unavailable)
        #expect(log.decisions.map(\.isTrusted) == [false, true, true])
        #expect(log.decisions.first?.reason.contains(lab.host) == true, "the refusal names the host: \(log.decisions.first?.reason ?? "")")
        #expect(server.service.calls == 1)
    }

    @Test("a gRPC server lets in the clients whose names are allowed, tells the service who they are, and refuses the others and clients without a certificate at the handshake")
    func mutualTLSServer() async throws {
        let mesh = try Mesh(lab)
        let log = DecisionLog()
        let server = try await EchoServer(.verifyingClients(
            with: mesh.clientVerifier(lab, allowing: ["spiffe://payments.example/ns/checkout/*"]),
            presenting: identity(lab.chain(.legitimate)),
            onDecision: log.record
        ))
        let checkout = try await echo(verifiedTransport(port: server.port, lab.serverVerifier(), identity: identity([mesh.checkout])))
        let batch = await rpcErrorCode { try await echo(verifiedTransport(port: server.port, lab.serverVerifier(), identity: identity([mesh.batch]))) }
        let anonymous = await rpcErrorCode { try await echo(verifiedTransport(port: server.port, lab.serverVerifier())) }
        await server.stop()

        #expect(checkout == "spiffe://payments.example/ns/checkout/sa/api|ping")
        #expect(batch == .unavailable)
        #expect(anonymous == .unavailable)
        #expect(server.service.calls == 1, "no refused client reached the service")
        #expect(log.decisions.map(\.isTrusted) == [true, false], "BoringSSL refuses a client without a certificate before asking the verifier")
        #expect(log.decisions.last?.reason.contains("spiffe://payments.example/ns/batch/sa/job") == true)
    }

    @Test("identities of any key reach grpc-swift: a client key held outside the process signs the handshake")
    func externalKeyIdentity() async throws {
        let mesh = try Mesh(lab)
        let server = try await EchoServer(.verifyingClients(
            with: mesh.clientVerifier(lab, allowing: ["spiffe://payments.example"]),
            presenting: identity(lab.chain(.legitimate))
        ))
        let external = try ClientIdentity(
            certificateChain: [try NIOSSLCertificate(bytes: mesh.checkout.der.derBytes, format: .der)],
            externalKey: SoftwareExternalKey(keyOf: mesh.checkout)
        )
        let answer = try await echo(verifiedTransport(port: server.port, lab.serverVerifier(), identity: external))
        await server.stop()
        #expect(answer == "spiffe://payments.example/ns/checkout/sa/api|ping")
    }

    @Test("a server certificate renewed on disk is presented from the next handshake on, without a new transport")
    func serverIdentityRenewed() async throws {
        let mesh = try Mesh(lab)
        let folder = try IdentityFolder()
        defer { folder.remove() }
        try folder.install(lab.chain(.legitimate))
        let files = try folder.identityFile()
        let server = try await EchoServer(.verifyingClients(with: mesh.clientVerifier(lab, allowing: ["spiffe://payments.example"]), presenting: files))
        let log = DecisionLog()
        let client = try identity([mesh.checkout])
        _ = try await echo(verifiedTransport(port: server.port, lab.serverVerifier(), identity: client, onDecision: log.record))
        try folder.install(lab.chain(.reissuedNewKey))
        files.reloadIfChanged()
        _ = try await echo(verifiedTransport(port: server.port, lab.serverVerifier(), identity: client, onDecision: log.record))
        await server.stop()

        let leaves = log.decisions.map { $0.lastEvaluation?.path.first?.spkiPin }
        #expect(leaves == [lab.chain(.legitimate)[0].der.spkiPin, lab.chain(.reissuedNewKey)[0].der.spkiPin])
        #expect(files.lastReloadError == nil)
    }

    @Test("a client certificate renewed on disk is presented from the next connection on, through the same transport settings")
    func clientIdentityRenewed() async throws {
        let mesh = try Mesh(lab)
        let folder = try IdentityFolder()
        defer { folder.remove() }
        try folder.install([mesh.checkout])
        let files = try folder.identityFile()
        let server = try await EchoServer(.verifyingClients(with: mesh.clientVerifier(lab, allowing: ["spiffe://payments.example"]), presenting: identity(lab.chain(.legitimate))))
        func call() async throws -> String {
            try await echo(HTTP2ClientTransport.Posix(target: .ipv4(address: "127.0.0.1", port: server.port), verifiedBy: lab.serverVerifier(), identityFile: files))
        }
        let before = try await call()
        try folder.install([mesh.batch])
        files.reloadIfChanged()
        let after = try await call()
        await server.stop()

        #expect(before == "spiffe://payments.example/ns/checkout/sa/api|ping")
        #expect(after == "spiffe://payments.example/ns/batch/sa/job|ping")
    }

    @Test("an Ed25519 server, whose key BoringSSL cannot export, serves through the identity handed over; the verified client checks its signature where grpc-swift's own TLS fails the handshake")
    func ed25519Server() async throws {
        let mesh = try Mesh(lab)
        let edLab = try TrustLab(pki: lab.pki, algorithm: .ed25519)
        let server = try await EchoServer(.verifyingClients(
            with: mesh.clientVerifier(lab, allowing: ["spiffe://payments.example"]),
            presenting: identity(edLab.chain(.legitimate))
        ))
        let verifier = PeerTrustVerifier(
            evaluator: SecurityPolicy.default,
            host: edLab.host,
            systemStore: TrustStore([edLab.root.der], origin: "Ed25519 lab"),
            evaluationTime: lab.pki.now,
            cache: nil
        )
        let answer = try await echo(verifiedTransport(port: server.port, verifier, identity: identity([mesh.checkout])))
        let theirs = await rpcErrorCode {
            try await echo(grpcTLSTransport(port: server.port, authority: edLab.host, .mTLS(
                certificateChain: [.bytes(Array(mesh.checkout.pemString.utf8), format: .pem)],
                privateKey: .bytes(Array(mesh.checkout.privateKeyPEM.utf8), format: .pem)
            ) { tls in
                tls.serverCertificateVerification = .noHostnameVerification
                tls.customVerificationCallback = verifier.makeVerificationCallbackWithMetadata()
            }))
        }
        await server.stop()
        #expect(answer == "spiffe://payments.example/ns/checkout/sa/api|ping")
        #expect(theirs == .unavailable, "BoringSSL's default signature algorithms leave Ed25519 out")
        #expect(server.service.calls == 1)
    }

    @Test("a client with an Ed25519 key cannot prove it to a gRPC server: grpc-swift's server TLS asks for BoringSSL's default signatures, which leave Ed25519 out (README says so)")
    func ed25519ClientRefusedByGRPCServer() async throws {
        let mesh = try Mesh(lab)
        let edWorkload = try lab.pki.issue(.client("edge", uris: ["spiffe://payments.example/ns/edge/sa/proxy"]), by: mesh.root, algorithm: .ed25519)
        let log = DecisionLog()
        let server = try await EchoServer(.verifyingClients(
            with: mesh.clientVerifier(lab, allowing: ["spiffe://payments.example"]),
            presenting: identity(lab.chain(.legitimate)),
            onDecision: log.record
        ))
        let refused = await rpcErrorCode { try await echo(verifiedTransport(port: server.port, lab.serverVerifier(), identity: identity([edWorkload]))) }
        let allowed = try await echo(verifiedTransport(port: server.port, lab.serverVerifier(), identity: identity([mesh.checkout])))
        await server.stop()
        #expect(refused == .unavailable)
        #expect(allowed == "spiffe://payments.example/ns/checkout/sa/api|ping")
        #expect(log.decisions.map(\.isTrusted) == [true], "the Ed25519 client gave up before its certificate reached the verifier")
        #expect(server.service.calls == 1)
    }
}
#endif
