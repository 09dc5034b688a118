import Foundation
import NIOSSL
import PKIBuilder
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO
import X509

/// Keys held outside the process (an HSM's, a cloud KMS's), signing through swift-nio-ssl's
/// `NIOSSLCustomPrivateKey`: ``SoftwareExternalKey`` signs later, from another thread, as such
/// a device does.
@Suite("External private keys (HSM, KMS)")
struct ExternalKeyTests {
    let lab = try! TrustLab()

    func nioCertificates(_ chain: [IssuedCertificate]) throws -> [NIOSSLCertificate] {
        try chain.map { try NIOSSLCertificate(bytes: $0.derBytes, format: .der) }
    }

    @Test("a client key held outside the process signs the handshake, and the server verifying clients lets it through", arguments: [KeyAlgorithm.p256, .p384, .rsa2048, .ed25519])
    func clientKey(algorithm: KeyAlgorithm) async throws {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let alice = try lab.pki.issue(.client("alice"), by: clientCA, algorithm: algorithm)
        let identity = try ClientIdentity(certificateChain: nioCertificates([alice]), externalKey: SoftwareExternalKey(keyOf: alice))
        let server = try await TLSTestServer(chain: lab.chain(.legitimate), clientVerifier: .clients(of: clientCA, at: lab.pki.now))
        let verifier = PeerTrustVerifier(
            evaluator: SecurityPolicy.default, host: lab.host,
            systemStore: TrustStore(lab.systemRoots.map(\.der)), evaluationTime: lab.pki.now, cache: nil
        )
        let outcome = try await connect(port: server.port, verifier: verifier, identity: identity)
        await server.stop()
        #expect(outcome.echoed == "\(alice.der.subjectSummary):ping")
        // A key that is not the certificate's, of the same kind: the handshake fails at the client.
        let other = try lab.pki.issue(.client("mallory"), by: clientCA, algorithm: algorithm)
        let mismatched = try ClientIdentity(certificateChain: nioCertificates([alice]), externalKey: SoftwareExternalKey(keyOf: other))
        let refusingServer = try await TLSTestServer(chain: lab.chain(.legitimate), clientVerifier: .clients(of: clientCA, at: lab.pki.now))
        let refused = try await connect(port: refusingServer.port, verifier: verifier, identity: mismatched)
        await refusingServer.stop()
        #expect(!refused.handshakeCompleted && refused.echoed == nil && refused.closed)
    }

    @Test("a server key held outside the process: the server's handshake is signed through it")
    func serverKey() async throws {
        let chain = lab.chain(.legitimate)
        let identity = try ClientIdentity(certificateChain: nioCertificates(chain), externalKey: SoftwareExternalKey(keyOf: chain[0]))
        let server = try await TLSTestServer(configuration: .transportSecurityServer(identity: identity))
        let verifier = PeerTrustVerifier(
            evaluator: SecurityPolicy.default, host: lab.host,
            systemStore: TrustStore(lab.systemRoots.map(\.der)), evaluationTime: lab.pki.now, cache: nil
        )
        let outcome = try await connect(port: server.port, verifier: verifier)
        await server.stop()
        #expect(outcome.handshakeCompleted)
        #expect(outcome.echoed == "ping")
    }

    @Test("refused where it is given: a custom key through the checking initializer, a key of another kind, no certificate")
    func refusals() throws {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let alice = try lab.pki.issue(.client("alice"), by: clientCA)
        let rsaCertificate = try lab.pki.issue(.client("rsa"), by: clientCA, algorithm: .rsa2048)
        let custom = NIOSSLPrivateKey(customPrivateKey: try SoftwareExternalKey(keyOf: alice))
        let unchecked = try #require(throws: ClientIdentityError.self) {
            try ClientIdentity(certificateChain: nioCertificates([alice]), privateKey: custom, source: "hsm:alice")
        }
        #expect(unchecked.reason == .externalKeyNotCheckable)
        #expect(unchecked.description.contains("ClientIdentity(certificateChain:externalKey:)"))
        let otherKind = try #require(throws: ClientIdentityError.self) {
            try ClientIdentity(certificateChain: nioCertificates([rsaCertificate]), externalKey: SoftwareExternalKey(keyOf: alice), source: "hsm:rsa")
        }
        #expect(otherKind == ClientIdentityError(source: "hsm:rsa", reason: .externalKeyAlgorithms(offered: ["ecdsa_secp256r1_sha256"], certificateKey: "RSA")))
        #expect(otherKind.description == "client identity hsm:rsa has an external key that signs with ecdsa_secp256r1_sha256, none of which the certificate's RSA key verifies: the key does not belong to the certificate")
        #expect(throws: ClientIdentityError(source: "external key", reason: .noCertificate)) {
            try ClientIdentity(certificateChain: [], externalKey: SoftwareExternalKey(keyOf: alice))
        }
    }
}

@Suite("TLS handshake signatures checked against a certificate's key")
struct TLSSignatureCheckTests {
    let lab = try! TrustLab()

    @Test("each TLS signature algorithm: a signature by the certificate's key verifies; by another key, or of another message, it does not", arguments: [
        (KeyAlgorithm.p256, SignatureAlgorithm.ecdsaSecp256R1Sha256), (.p256, .ecdsaSha1), (.p384, .ecdsaSecp384R1Sha384),
        (.p521, .ecdsaSecp521R1Sha512), (.rsa2048, .rsaPkcs1Sha1), (.rsa2048, .rsaPkcs1Sha256), (.rsa2048, .rsaPkcs1Sha384),
        (.rsa2048, .rsaPkcs1Sha512), (.rsa2048, .rsaPssRsaeSha256), (.rsa2048, .rsaPssRsaeSha384), (.rsa2048, .rsaPssRsaeSha512),
        (.ed25519, .ed25519),
    ])
    func signatures(keyAlgorithm: KeyAlgorithm, signatureAlgorithm: SignatureAlgorithm) throws {
        let ca = try lab.pki.issueRoot(.certificateAuthority("Signing CA"))
        let holder = try lab.pki.issue(.client("holder"), by: ca, algorithm: keyAlgorithm)
        let other = try lab.pki.issue(.client("other"), by: ca, algorithm: keyAlgorithm)
        let message = Array("TLS 1.3, client CertificateVerify".utf8)
        let signature = try SoftwareExternalKey(keyOf: holder).signature(of: message, by: signatureAlgorithm)
        let key = holder.certificate.publicKey
        #expect(TLSSignatureCheck.fits(signatureAlgorithm, key))
        #expect(TLSSignatureCheck.isValid(signature, of: message, by: signatureAlgorithm, key: key))
        #expect(!TLSSignatureCheck.isValid(signature, of: message + [0], by: signatureAlgorithm, key: key))
        #expect(!TLSSignatureCheck.isValid(signature, of: message, by: signatureAlgorithm, key: other.certificate.publicKey))
        #expect(!TLSSignatureCheck.isValid([0x30, 0x00], of: message, by: signatureAlgorithm, key: key))
    }

    @Test("algorithms fit their kind of key only; names are TLS's")
    func fitsAndNames() throws {
        let ca = try lab.pki.issueRoot(.certificateAuthority("Signing CA"))
        let rsa = try lab.pki.issue(.client("rsa"), by: ca, algorithm: .rsa2048).certificate.publicKey
        let p256 = try lab.pki.issue(.client("p256"), by: ca).certificate.publicKey
        let ed25519 = try lab.pki.issue(.client("ed"), by: ca, algorithm: .ed25519).certificate.publicKey
        #expect(!TLSSignatureCheck.fits(.ecdsaSecp256R1Sha256, rsa))
        #expect(!TLSSignatureCheck.fits(.rsaPssRsaeSha256, p256))
        #expect(!TLSSignatureCheck.fits(.ed25519, p256))
        #expect(!TLSSignatureCheck.fits(.ecdsaSecp256R1Sha256, ed25519))
        #expect(TLSSignatureCheck.fits(.ecdsaSecp384R1Sha384, p256), "TLS 1.2 names only the hash of an ECDSA signature")
        #expect(!TLSSignatureCheck.fits(SignatureAlgorithm(rawValue: 0x0807 + 0x100), p256), "an algorithm it does not know fits nothing")
        #expect(!TLSSignatureCheck.isValid([1], of: [1], by: SignatureAlgorithm(rawValue: 0x0907), key: p256))
        #expect(TLSSignatureCheck.kind(of: rsa) == "RSA" && TLSSignatureCheck.kind(of: p256) == "P-256" && TLSSignatureCheck.kind(of: ed25519) == "Ed25519")
        #expect(TLSSignatureCheck.name(of: .rsaPssRsaeSha256) == "rsa_pss_rsae_sha256")
        #expect(TLSSignatureCheck.name(of: SignatureAlgorithm(rawValue: 0x0907)) == "0x907")
    }
}
