import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

/// A session whose client certificate is renewed on disk while it runs, against a server that
/// answers each connection with the subject of the certificate its client presented.
@Suite("Client identities renewed while a session runs (clientIdentityFile)")
struct ClientIdentityRenewalTests {
    let files = try! ClientCertificateLab()
    var lab: TrustLab { files.lab }
    var clientCA: IssuedCertificate { files.clientCA }
    var alice: IssuedCertificate { files.alice }
    var bob: IssuedCertificate { files.bob }
    var certificatePath: String { files.path("client.crt") }
    var keyPath: String { files.path("client.key") }

    /// Writes `holder`'s certificate (`certificate`) and key (`key`) as a renewal would.
    func install(_ holder: IssuedCertificate, certificate: Bool = true, key: Bool = true) throws {
        if certificate { try files.replace("client.crt", with: Data(holder.pemString.utf8)) }
        if key { try files.replace("client.key", with: Data(holder.privateKeyPEM.utf8)) }
    }

    func session(identityFile: ClientIdentityFile?, identity: ClientIdentity? = nil) -> SecureSession {
        lab.session {
            $0.tls.clientIdentity = identity
            $0.tls.clientIdentityFile = identityFile
        }
    }

    @Test("after a renewal, new connections present the new certificate and those that presented the old one are not reused", arguments: [false, true])
    func renewal(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), clientVerifier: .clients(of: clientCA, at: lab.pki.now), http2: http2)
        try install(alice)
        let identities = try ClientIdentityFile(certificateFile: certificatePath, privateKeyFile: keyPath, checkInterval: .zero)
        let session = session(identityFile: identities)
        let url = server.url("/client-certificate")
        let first = try await session.get(url)
        #expect(first.text == "CN=alice")
        #expect(first.httpVersion == (http2 ? "HTTP/2" : "HTTP/1.1"))
        #expect(try await session.get(url).timing.reusedConnection)

        // Half a renewal (the certificate without its key) changes nothing.
        try install(bob, key: false)
        let halfway = try await session.get(url)
        #expect(halfway.text == "CN=alice")
        #expect(halfway.timing.reusedConnection)
        #expect(identities.lastReloadError?.reason == .keyDoesNotMatchCertificate)

        try install(bob, certificate: false)
        let renewed = try await session.get(url)
        #expect(renewed.text == "CN=bob")
        #expect(!renewed.timing.reusedConnection, "a connection that presented alice is not reused")
        let after = try await session.get(url)
        #expect(after.text == "CN=bob")
        #expect(after.timing.reusedConnection)
        #expect(server.connections.total == 2)
        await session.shutdown()
        await server.stop()
    }

    @Test("within checkInterval the session goes on presenting the identity it has")
    func checkInterval() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), clientVerifier: .clients(of: clientCA, at: lab.pki.now))
        try install(alice)
        let identities = try ClientIdentityFile(certificateFile: certificatePath, privateKeyFile: keyPath, checkInterval: .seconds(3600))
        let session = session(identityFile: identities)
        let url = server.url("/client-certificate")
        #expect(try await session.get(url).text == "CN=alice")
        try install(bob)
        #expect(try await session.get(url).text == "CN=alice")
        identities.reloadIfChanged()
        #expect(try await session.get(url).text == "CN=bob")
        await session.shutdown()
        await server.stop()
    }

    @Test("clientIdentity and clientIdentityFile both set: each request fails naming both, before connecting")
    func both() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), clientVerifier: .clients(of: clientCA, at: lab.pki.now))
        try install(alice)
        let identities = try ClientIdentityFile(certificateFile: certificatePath, privateKeyFile: keyPath)
        let identity = try ClientIdentity(certificateChainPEM: alice.pemString, privateKeyPEM: alice.privateKeyPEM)
        let session = session(identityFile: identities, identity: identity)
        await #expect {
            _ = try await session.get(server.url("/client-certificate"))
        } throws: { error in
            guard case .invalidRequest(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("clientIdentity") && detail.contains("clientIdentityFile") && detail.contains(certificatePath)
        }
        #expect(server.connections.total == 0)
        await session.shutdown()
        await server.stop()
    }
}
