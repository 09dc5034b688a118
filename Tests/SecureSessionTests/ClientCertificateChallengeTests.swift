import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

@Suite("Client-certificate challenges")
struct ClientCertificateChallengeTests {
    let lab = try! TrustLab()
    let clientCA: IssuedCertificate
    let alice: ClientIdentity
    /// An identity from a CA the server does not accept.
    let mallory: ClientIdentity

    init() throws {
        clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let aliceCertificate = try lab.pki.issue(.client("alice"), by: clientCA)
        alice = try ClientIdentity(certificateChainPEM: aliceCertificate.pemString, privateKeyPEM: aliceCertificate.privateKeyPEM)
        let otherCA = try lab.pki.issueRoot(.certificateAuthority("Other CA"))
        let malloryCertificate = try lab.pki.issue(.client("mallory"), by: otherCA)
        mallory = try ClientIdentity(certificateChainPEM: malloryCertificate.pemString, privateKeyPEM: malloryCertificate.privateKeyPEM)
    }

    func session(handler: ChallengeHandler?, identity: ClientIdentity? = nil) -> SecureSession {
        SecureSession(configuration: SecureSessionConfiguration(
            tls: .init(
                clientIdentity: identity,
                systemStore: TrustStore(lab.systemRoots.map(\.der)),
                evaluationTime: lab.pki.now,
                decisionCache: nil
            ),
            timeouts: .init(request: .seconds(5)),
            responses: .init(validation: .none),
            features: .init(challengeHandler: handler)
        ))
    }

    func mutualTLSServer(http2: Bool = false) async throws -> HTTPTestServer {
        try await HTTPTestServer(chain: lab.loopbackChain(), clientVerifier: .clients(of: clientCA, at: lab.pki.now), http2: http2)
    }

    /// Expects the request to fail because the server refused the handshake without an
    /// acceptable certificate (not a trust or challenge error), and to say so (the TLS 1.3
    /// alert arrives after the client's side of the handshake has completed).
    func expectRefusedByServer(_ session: SecureSession, _ url: URL, sourceLocation: SourceLocation = #_sourceLocation) async {
        await #expect(sourceLocation: sourceLocation) {
            _ = try await session.get(url)
        } throws: { error in
            guard case .tlsFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("client certificate")
        }
        await session.shutdown()
    }

    @Test("an expired client certificate refused by the server: the failure says when it expired, over TLS 1.3 (refused after the handshake) and TLS 1.2 (during it)", arguments: [TLSProtocolVersion.tls13, .tls12])
    func expiredIdentity(version: TLSProtocolVersion) async throws {
        var profile = CertificateProfile.client("retired")
        profile.notBeforeOffset = -400 * 86_400
        profile.notAfterOffset = -10 * 86_400
        let retired = try lab.pki.issue(profile, by: clientCA)
        let identity = try ClientIdentity(certificateChainPEM: retired.pemString, privateKeyPEM: retired.privateKeyPEM)
        let server = try await mutualTLSServer()
        let session = lab.session {
            $0.tls.clientIdentity = identity
            $0.tls.maximumTLSVersion = version
        }
        let expiry = retired.certificate.notValidAfter.formatted(.iso8601)
        await #expect {
            _ = try await session.get(server.url("/hello"))
        } throws: { error in
            guard case .tlsFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("the server rejected the client certificate presented")
                && detail.hasSuffix("; the client certificate presented (CN=retired) expired at \(expiry)")
        }
        await session.shutdown()
        // A certificate valid at the session's time that the server refuses says nothing of validity.
        let stranger = self.session(handler: nil, identity: mallory)
        await #expect {
            _ = try await stranger.get(server.url("/hello"))
        } throws: { error in
            guard case .tlsFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("the server rejected the client certificate presented") && !detail.contains("expired") && !detail.contains("not valid before")
        }
        await stranger.shutdown()
        await server.stop()
    }

    @Test("useCredential(.clientIdentity) presents the handler's identity, asked once per connection")
    func useCredential() async throws {
        let server = try await mutualTLSServer()
        let presenting = RecordingHandler { _ in .useCredential(.clientIdentity(alice)) }
        let session = session(handler: presenting.handler)
        #expect(try await session.get(server.url("/hello")).text == "hello")
        #expect(try await session.get(server.url("/hello")).text == "hello")
        #expect(presenting.challenges.count == 1, "the pooled connection is not challenged again")
        let challenge = try #require(presenting.challenges.first)
        #expect(challenge.protectionSpace == ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: true, realm: nil, method: .clientCertificate))
        #expect(challenge.serverTrust == nil)
        await session.shutdown()
        // An identity the server does not accept is presented all the same, and refused.
        let wrong = RecordingHandler { _ in .useCredential(.clientIdentity(mallory)) }
        await expectRefusedByServer(self.session(handler: wrong.handler), server.url("/hello"))
        #expect(wrong.challenges.count == 1)
        await server.stop()
    }

    @Test("performDefaultHandling presents the session's identity, or none when it has none")
    func performDefaultHandling() async throws {
        let server = try await mutualTLSServer()
        let defaulting = RecordingHandler { _ in .performDefaultHandling }
        let withIdentity = session(handler: defaulting.handler, identity: alice)
        #expect(try await withIdentity.get(server.url("/hello")).text == "hello")
        await withIdentity.shutdown()
        await expectRefusedByServer(session(handler: defaulting.handler), server.url("/hello"))
        #expect(defaulting.challenges.map(\.protectionSpace.method) == [.clientCertificate, .clientCertificate])
        await server.stop()
    }

    @Test("without a certificate the server's refusal reads as such, over HTTP/1.1 and HTTP/2", arguments: [false, true])
    func refusalInWords(http2: Bool) async throws {
        let server = try await mutualTLSServer(http2: http2)
        await expectRefusedByServer(session(handler: nil), server.url("/hello"))
        await server.stop()
    }

    @Test("rejectProtectionSpace and useCredential without an identity continue without a certificate")
    func continueWithout() async throws {
        let server = try await mutualTLSServer()
        // Even a session identity is not presented: the handler decided.
        let rejecting = RecordingHandler { _ in .rejectProtectionSpace }
        await expectRefusedByServer(session(handler: rejecting.handler, identity: alice), server.url("/hello"))
        #expect(rejecting.challenges.count == 1)
        let none = RecordingHandler { _ in .useCredential(nil) }
        await expectRefusedByServer(session(handler: none.handler, identity: alice), server.url("/hello"))
        let password = RecordingHandler { _ in .useCredential(.user("alice", password: "wonderland")) }
        await expectRefusedByServer(session(handler: password.handler, identity: alice), server.url("/hello"))
        #expect(password.challenges.count == 1)
        await server.stop()
    }

    @Test("cancelAuthenticationChallenge fails the request with challengeCancelled for the client-certificate space")
    func cancel() async throws {
        let server = try await mutualTLSServer()
        let cancelling = RecordingHandler { _ in .cancelAuthenticationChallenge }
        let session = session(handler: cancelling.handler, identity: alice)
        await #expect {
            _ = try await session.get(server.url("/hello"))
        } throws: { error in
            guard case .challengeCancelled(let space)? = error.sessionFailureReason else { return false }
            return space.method == .clientCertificate && space.port == server.port
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("a request's own handler answers before the session's")
    func precedence() async throws {
        let server = try await mutualTLSServer()
        let sessionWide = RecordingHandler { _ in .cancelAuthenticationChallenge }
        let session = session(handler: sessionWide.handler)
        let perRequest = RecordingHandler { _ in .useCredential(.clientIdentity(alice)) }
        var request = SecureRequest(url: server.url("/hello"))
        request.challengeHandler = perRequest.handler
        #expect(try await session.send(request).text == "hello")
        #expect(perRequest.challenges.count == 1)
        #expect(sessionWide.challenges.isEmpty)
        await session.shutdown()
        await server.stop()
    }

    @Test("a server that does not ask for a certificate never raises the challenge")
    func notRequested() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let handler = RecordingHandler { _ in .cancelAuthenticationChallenge }
        let session = session(handler: handler.handler, identity: alice)
        #expect(try await session.get(server.url("/hello")).text == "hello")
        #expect(handler.challenges.isEmpty)
        #expect(handler.trustChallenges.count == 1)
        await session.shutdown()
        await server.stop()
    }

    @Test("a handler that answers too late is bounded by the request timeout")
    func slowHandler() async throws {
        let server = try await mutualTLSServer()
        let alice = alice
        let slow: ChallengeHandler = { challenge in
            guard challenge.protectionSpace.method == .clientCertificate else { return .performDefaultHandling }
            try? await Task.sleep(for: .milliseconds(800))
            return .useCredential(.clientIdentity(alice))
        }
        let session = session(handler: slow)
        var request = SecureRequest(url: server.url("/hello"))
        request.timeout = .milliseconds(200)
        await #expect {
            _ = try await session.send(request)
        } throws: { error in
            guard case .timeout? = error.sessionFailureReason else { return false }
            return true
        }
        // The late answer reaches a closed connection harmlessly; the next request succeeds.
        try await Task.sleep(for: .milliseconds(1000))
        #expect(try await session.get(server.url("/hello")).text == "hello")
        await session.shutdown()
        await server.stop()
    }
}
