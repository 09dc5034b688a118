import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

/// Requests presenting client identities of their own (a platform calling one API for several
/// tenants), against a server that answers with the subject of the certificate presented.
@Suite("Client identities per request")
struct RequestClientIdentityTests {
    let lab = try! ClientCertificateLab()

    func identity(_ holder: IssuedCertificate) throws -> ClientIdentity {
        try ClientIdentity(certificateChainPEM: holder.pemString, privateKeyPEM: holder.privateKeyPEM)
    }

    func request(_ url: URL, presenting identity: ClientIdentity?) -> SecureRequest {
        var request = SecureRequest(url: url)
        request.clientIdentity = identity
        return request
    }

    @Test("each request presents its own identity, or the session's; connections are pooled per identity and never shared across them", arguments: [false, true])
    func perRequest(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.lab.loopbackChain(), clientVerifier: .clients(of: lab.clientCA, at: lab.lab.pki.now), http2: http2)
        let session = lab.lab.session { $0.tls.clientIdentity = try? identity(lab.alice) }
        let url = server.url("/client-certificate")
        let bob = try identity(lab.bob)
        var answers: [String] = []
        for round in 0..<6 {
            let response = try await session.send(request(url, presenting: round.isMultiple(of: 2) ? nil : bob))
            answers.append(response.text)
            #expect(response.timing.reusedConnection == (round >= 2), "round \(round)")
        }
        #expect(answers == ["CN=alice", "CN=bob", "CN=alice", "CN=bob", "CN=alice", "CN=bob"])
        #expect(server.connections.total == 2, "one connection per identity")
        await session.shutdown()
        await server.stop()
    }

    @Test("a session without an identity: only the requests that bring one present a certificate")
    func sessionWithout() async throws {
        let server = try await HTTPTestServer(chain: lab.lab.loopbackChain(), clientVerifier: .clients(of: lab.clientCA, at: lab.lab.pki.now))
        let session = lab.lab.session()
        let url = server.url("/client-certificate")
        #expect(try await session.send(request(url, presenting: identity(lab.bob))).text == "CN=bob")
        await #expect {
            _ = try await session.send(request(url, presenting: nil))
        } throws: { error in
            guard case .tlsFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("client certificate")
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("a request's own identity follows a redirect to its own server, never to another origin (which gets no certificate)")
    func redirects() async throws {
        let partner = try await HTTPTestServer(chain: lab.lab.loopbackChain(), clientVerifier: .clients(of: lab.clientCA, at: lab.lab.pki.now))
        let stranger = try await HTTPTestServer(chain: lab.lab.loopbackChain(), clientVerifier: .clients(of: lab.clientCA, at: lab.lab.pki.now))
        let session = lab.lab.session()
        let alice = try identity(lab.alice)
        let same = try await session.send(request(partner.url("/redirect?to=/client-certificate"), presenting: alice))
        #expect(same.text == "CN=alice")
        var away = URLComponents(url: partner.url("/redirect"), resolvingAgainstBaseURL: false)!
        away.queryItems = [URLQueryItem(name: "to", value: stranger.url("/client-certificate").absoluteString)]
        await #expect {
            _ = try await session.send(request(away.url!, presenting: alice))
        } throws: { error in
            guard case .tlsFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("client certificate")
        }
        await session.shutdown()
        await partner.stop()
        await stranger.stop()
    }

    @Test("more tenants than TLS contexts are kept: each request still presents its own certificate")
    func manyTenants() async throws {
        let server = try await HTTPTestServer(chain: lab.lab.loopbackChain(), clientVerifier: .clients(of: lab.clientCA, at: lab.lab.pki.now))
        let session = lab.lab.session()
        let url = server.url("/client-certificate")
        let tenants = try (0..<70).map { try lab.lab.pki.issue(.client("tenant-\($0)"), by: lab.clientCA) }
        for (index, tenant) in tenants.enumerated() {
            #expect(try await session.send(request(url, presenting: identity(tenant))).text == "CN=tenant-\(index)")
        }
        // The first tenants again, their contexts made anew.
        #expect(try await session.send(request(url, presenting: identity(tenants[0]))).text == "CN=tenant-0")
        await session.shutdown()
        await server.stop()
    }
}
