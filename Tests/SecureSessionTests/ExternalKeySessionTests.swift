import Foundation
import NIOSSL
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

/// A session presenting a client certificate whose key is held outside the process (an HSM's, a
/// cloud KMS's), against a server that answers with the subject of the certificate presented.
@Suite("External client keys through the session")
struct ExternalKeySessionTests {
    let lab = try! ClientCertificateLab()

    func identity(certificate: IssuedCertificate, key: SoftwareExternalKey) throws -> ClientIdentity {
        try ClientIdentity(certificateChain: [NIOSSLCertificate(bytes: certificate.derBytes, format: .der)], externalKey: key, source: "kms:alice")
    }

    func get(_ path: String, presenting identity: ClientIdentity, http2: Bool = false) async throws -> SecureResponse {
        let server = try await HTTPTestServer(chain: lab.lab.loopbackChain(), clientVerifier: .clients(of: lab.clientCA, at: lab.lab.pki.now), http2: http2)
        let session = SecureSession(configuration: SecureSessionConfiguration(
            tls: .init(
                clientIdentity: identity,
                systemStore: TrustStore(lab.lab.systemRoots.map(\.der)),
                evaluationTime: lab.lab.pki.now
            ),
            timeouts: .init(request: .seconds(10))
        ))
        let outcome = await Result { try await session.get(server.url(path)) }
        await session.shutdown()
        await server.stop()
        return try outcome.get()
    }

    @Test("the server sees the certificate whose key signed outside the process", arguments: [false, true])
    func presented(http2: Bool) async throws {
        let response = try await get("/client-certificate", presenting: identity(certificate: lab.alice, key: SoftwareExternalKey(keyOf: lab.alice)), http2: http2)
        #expect(response.text == "CN=alice")
    }

    @Test("a key that is not the certificate's fails the request naming the identity and why, before the server sees its signature")
    func mismatch() async throws {
        await #expect {
            _ = try await get("/client-certificate", presenting: identity(certificate: lab.alice, key: SoftwareExternalKey(keyOf: lab.bob)))
        } throws: { error in
            guard case .tlsFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("client identity kms:alice has an external key whose signature (ecdsa_secp256r1_sha256) does not verify with the certificate's public key")
        }
    }

    @Test("a device that fails to sign fails the request with the device's own error")
    func deviceFailure() async throws {
        await #expect {
            _ = try await get("/client-certificate", presenting: identity(certificate: lab.alice, key: SoftwareExternalKey(keyOf: lab.alice, failure: "HSM slot 3 did not answer")))
        } throws: { error in
            guard case .tlsFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("HSM slot 3 did not answer")
        }
    }
}
