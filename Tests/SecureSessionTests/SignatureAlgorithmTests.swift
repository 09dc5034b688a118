import Foundation
import NIOSSL
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

@Suite("Handshake signatures BoringSSL verifies but does not offer: Ed25519 and ECDSA P-521")
struct SignatureAlgorithmTests {
    let lab = try! TrustLab()

    /// A root, an intermediate and a leaf for 127.0.0.1, every key of `algorithm`.
    func hierarchy(_ algorithm: KeyAlgorithm) throws -> (root: IssuedCertificate, chain: [IssuedCertificate]) {
        let root = try lab.pki.issueRoot(.certificateAuthority("\(algorithm) Root"), algorithm: algorithm)
        let intermediate = try lab.pki.issue(.certificateAuthority("\(algorithm) Issuing CA", pathLength: 0), by: root, algorithm: algorithm)
        let leaf = try lab.pki.issue(.server("loopback", ipAddresses: ["127.0.0.1"]), by: intermediate, algorithm: algorithm)
        return (root, [leaf, intermediate])
    }

    func session(trusting root: IssuedCertificate, identity: ClientIdentity? = nil) -> SecureSession {
        lab.session {
            $0.tls.systemStore = TrustStore([root.der], origin: "test root")
            $0.tls.clientIdentity = identity
        }
    }

    @Test(
        "a server whose keys are all Ed25519, or all P-521, is trusted over TLS 1.3 (a SwiftNIO server) and TLS 1.2 (openssl s_server), and its chain fetched: BoringSSL offered neither signature, so the handshake failed where curl connected",
        arguments: [KeyAlgorithm.ed25519, .p521]
    )
    func serverKeys(algorithm: KeyAlgorithm) async throws {
        let (root, chain) = try hierarchy(algorithm)
        let server = try await HTTPTestServer(chain: chain)
        let session = session(trusting: root)
        let response = try await session.get(server.url("/hello"))
        #expect(response.text == "hello")
        #expect(response.trustDecision?.isTrusted == true)
        #expect(try await PeerChainFetcher.fetch(host: "127.0.0.1", port: server.port).first == chain[0].der, "tsec fetch-chain too")
        await server.stop()

        let openSSL = try OpenSSLServer(chain: chain, options: ["-tls1_2"])
        defer { openSSL.stop() }
        let overTLS12 = try await session.get(openSSL.url)
        #expect(overTLS12.statusCode == 200)
        #expect(overTLS12.text.contains("TLSv1.2"))
        #expect(try await PeerChainFetcher.fetch(host: "127.0.0.1", port: openSSL.port).first == chain[0].der)
        await session.shutdown()
    }

    @Test("a client identity with an Ed25519 or a P-521 key loads (an Ed25519 one was refused as not its certificate's: swift-nio-ssl cannot export the key) and is taken by a server made with transportSecurityServer; another key of the kind is refused", arguments: [KeyAlgorithm.ed25519, .p521])
    func clientKeys(algorithm: KeyAlgorithm) async throws {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("\(algorithm) Client CA"), algorithm: algorithm)
        let alice = try lab.pki.issue(.client("alice"), by: clientCA, algorithm: algorithm)
        let identity = try ClientIdentity(certificateChainPEM: alice.pemString, privateKeyPEM: alice.privateKeyPEM)
        // Another key of the same kind is refused as not the certificate's (swift-nio-ssl cannot
        // export an Ed25519 key; BoringSSL's own pairing check decides).
        let other = try lab.pki.issue(.client("mallory"), by: clientCA, algorithm: algorithm)
        #expect(throws: ClientIdentityError.self) {
            try ClientIdentity(certificateChainPEM: alice.pemString, privateKeyPEM: other.privateKeyPEM)
        }
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), clientVerifier: .clients(of: clientCA, at: lab.pki.now))
        let session = session(trusting: lab.root, identity: identity)
        #expect(try await session.get(server.url("/hello")).text == "hello")
        await session.shutdown()
        await server.stop()
    }

    @Test("the client still offers the post-quantum X25519MLKEM768 first (its key share sent), and names P-521 last only so that a P-521 certificate may be used over TLS 1.2")
    func offeredGroups() {
        let configuration = TLSConfiguration.transportSecurityClient()
        #expect(configuration.curves == [.x25519_MLKEM768, .x25519, .secp256r1, .secp384r1, .secp521r1])
        #expect(configuration.verifySignatureAlgorithms?.contains(.ed25519) == true)
        #expect(configuration.verifySignatureAlgorithms?.contains(.ecdsaSecp521R1Sha512) == true)
        #expect(configuration.verifySignatureAlgorithms?.first == .ecdsaSecp256R1Sha256, "BoringSSL's preference order kept")
    }
}
