import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

/// A handler that answers HTTP challenges with `disposition` and server-trust challenges with
/// `trustDisposition`, and keeps what it saw.
final class RecordingHandler: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [AuthenticationChallenge] = []
    let disposition: @Sendable (AuthenticationChallenge) -> ChallengeDisposition
    let trustDisposition: ChallengeDisposition

    init(
        trust trustDisposition: ChallengeDisposition = .performDefaultHandling,
        _ disposition: @escaping @Sendable (AuthenticationChallenge) -> ChallengeDisposition = { _ in .performDefaultHandling }
    ) {
        self.disposition = disposition
        self.trustDisposition = trustDisposition
    }

    var handler: ChallengeHandler {
        { challenge in
            self.lock.withLock { self.seen.append(challenge) }
            return challenge.protectionSpace.method == .serverTrust ? self.trustDisposition : self.disposition(challenge)
        }
    }

    /// The HTTP challenges seen.
    var challenges: [AuthenticationChallenge] { lock.withLock { seen.filter { $0.protectionSpace.method != .serverTrust } } }

    /// The server-trust challenges seen.
    var trustChallenges: [AuthenticationChallenge] { lock.withLock { seen.filter { $0.protectionSpace.method == .serverTrust } } }
}

@Suite("HTTP authentication challenges")
struct ChallengeTests {
    let lab = try! TrustLab()
    let alice = Credential.user("alice", password: "wonderland")

    func session(handler: ChallengeHandler? = nil, store: CredentialStore = CredentialStore()) -> SecureSession {
        SecureSession(configuration: SecureSessionConfiguration(
            tls: .init(
                systemStore: TrustStore(lab.systemRoots.map(\.der)),
                evaluationTime: lab.pki.now,
                decisionCache: nil
            ),
            responses: .init(validation: .none),
            features: .init(challengeHandler: handler, credentialStore: store)
        ))
    }

    @Test("without a handler or stored credential the 401 and its body reach the caller")
    func unanswered() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        let response = try await session.get(server.url("/basic"))
        #expect(response.statusCode == 401)
        #expect(response.text == "who are you?")
        await session.shutdown()
        await server.stop()
    }

    @Test("built-in behaviour answers from the credential store (Basic, and Digest MD5 and SHA-256, the strongest Digest offered that it can answer)")
    func storedCredentials() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let store = CredentialStore()
        store.set(alice, for: ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: true, realm: "lab", method: .httpBasic))
        store.set(alice, for: ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: true, realm: nil, method: .httpDigest))
        let session = session(store: store)
        #expect(try await session.get(server.url("/basic")).text == "welcome alice")
        #expect(try await session.get(server.url("/digest?algorithm=MD5")).text == "welcome alice (digest)")
        #expect(try await session.get(server.url("/digest?algorithm=SHA-256")).text == "welcome alice (digest)")
        // Several Digest challenges: one the session cannot answer is passed over, and the
        // strongest it can answer is chosen, whatever the order.
        #expect(try await session.get(server.url("/digest?algorithm=SHA-256&first=SHA-512-256")).text == "welcome alice (digest)")
        #expect(try await session.get(server.url("/digest?algorithm=SHA-256&first=MD5")).text == "welcome alice (digest)")
        // A nonce that expired on the way (stale=true): the same credential answers the fresh
        // nonce; it did not fail (RFC 7616 §3.3).
        #expect(try await session.get(server.url("/digest?algorithm=SHA-256&stale=1")).text == "welcome alice (digest)")
        await session.shutdown()
        await server.stop()
    }

    /// The `WWW-Authenticate` field lighttpd answers a request without credentials with.
    func challengeField(of server: LighttpdAuthServer) async throws -> String? {
        let anonymous = session()
        let challenge = try await anonymous.get(server.url)
        await anonymous.shutdown()
        #expect(challenge.statusCode == 401)
        return challenge.headers.first { $0.name.lowercased() == "www-authenticate" }?.value
    }

    /// lighttpd's page, asked for by a session whose store holds `credential` for `realm`.
    func page(from server: LighttpdAuthServer, with credential: Credential, realm: String, method: ProtectionSpace.Method) async throws -> SecureResponse {
        let store = CredentialStore()
        store.set(credential, for: ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: false, realm: realm, method: method))
        let session = session(store: store)
        let response = try await session.get(server.url)
        await session.shutdown()
        return response
    }

    @Test("Digest against lighttpd offering userhash=true: the plain user name it accepts is sent")
    func digestUserhashWithLighttpd() async throws {
        let server = try LighttpdAuthServer(user: "alice", password: "wonderland", realm: "lab digest", algorithm: "SHA-256", userhash: true)
        defer { server.stop() }
        #expect(try await challengeField(of: server)?.contains("userhash=true") == true, "lighttpd offers it")
        let response = try await page(from: server, with: alice, realm: "lab digest", method: .httpDigest)
        #expect(response.statusCode == 200)
        #expect(response.text == LighttpdAuthServer.page)
    }

    @Test("Digest against lighttpd (charset=\"UTF-8\"): non-ASCII user names, and names and passwords typed in another Unicode normal form")
    func digestInternationalUserNames() async throws {
        // (the server's user and password, the session's): a decomposed ü (u + U+0308) is the
        // same name once in Normalization Form C, as RFC 7616 §4 asks under charset="UTF-8".
        let pairs = [
            (("jürgen", "wonderland"), ("jürgen", "wonderland")),
            (("名前", "wonderland"), ("名前", "wonderland")),
            (("jürgen", "grün"), ("ju\u{308}rgen", "gru\u{308}n")),
        ]
        for ((serverUser, serverPassword), (user, password)) in pairs {
            let server = try LighttpdAuthServer(user: serverUser, password: serverPassword, realm: "lab digest", algorithm: "SHA-256")
            defer { server.stop() }
            let response = try await page(from: server, with: .user(user, password: password), realm: "lab digest", method: .httpDigest)
            #expect(response.statusCode == 200, "\(user.unicodeScalars.map { $0.escaped(asASCII: true) }.joined())")
            #expect(response.text == LighttpdAuthServer.page)
        }
    }

    @Test("Basic against lighttpd (charset=\"UTF-8\"): a name and password typed in another Unicode normal form are sent in Form C, as RFC 7617 §2.1 asks")
    func basicInternationalUserNames() async throws {
        let server = try LighttpdAuthServer(user: "jürgen", password: "grün", realm: "lab basic", algorithm: "MD5", method: "basic")
        defer { server.stop() }
        #expect(try await challengeField(of: server)?.lowercased().contains(#"charset="utf-8""#) == true)
        let response = try await page(from: server, with: .user("ju\u{308}rgen", password: "gru\u{308}n"), realm: "lab basic", method: .httpBasic)
        #expect(response.statusCode == 200)
        #expect(response.text == LighttpdAuthServer.page)
    }

    @Test("a Basic user name with a colon is refused with invalidRequest, not sent for the server to split (RFC 7617 §2)")
    func basicUserNameWithColon() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let store = CredentialStore()
        store.set(.user("alice:wonder", password: "land"), for: ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: true, realm: "lab", method: .httpBasic))
        let session = session(store: store)
        await #expect {
            _ = try await session.get(server.url("/basic"))
        } throws: { error in
            guard case .invalidRequest(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("colon") && !detail.contains("land")
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("Digest against lighttpd, an independent peer (RFC 7616, MD5 and SHA-256, qop=auth): the stored credential answers every request of the session, a wrong one gets the 401")
    func digestWithLighttpd() async throws {
        for algorithm in ["MD5", "SHA-256"] {
            let server = try LighttpdAuthServer(user: "alice", password: "wonderland", realm: "lab digest", algorithm: algorithm)
            defer { server.stop() }
            let space = ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: false, realm: "lab digest", method: .httpDigest)
            let store = CredentialStore()
            store.set(alice, for: space)
            let session = session(store: store)
            for _ in 0..<3 {
                let response = try await session.get(server.url)
                #expect(response.statusCode == 200, "\(algorithm)")
                #expect(response.text == LighttpdAuthServer.page, "\(algorithm)")
            }
            let posted = try await session.send(SecureRequest(.post, url: server.url, body: Data("a=1".utf8)))
            #expect(posted.statusCode == 200, "\(algorithm): the body goes again with the answer")
            await session.shutdown()

            let wrongStore = CredentialStore()
            wrongStore.set(.user("alice", password: "guess"), for: space)
            let refused = self.session(store: wrongStore)
            let response = try await refused.get(server.url)
            #expect(response.statusCode == 401, "\(algorithm)")
            #expect(response.headers.first { $0.name.lowercased() == "www-authenticate" }?.value.contains("algorithm=\(algorithm)") == true)
            await refused.shutdown()
        }
    }

    @Test("without a handler or stored credential, the URL's user and password answer (Basic, Digest), percent-decoded; never the request line or Host")
    func urlCredentials() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        func url(_ path: String, user: String = "alice", password: String? = "wonderland") -> URL {
            var components = URLComponents(url: server.url(path), resolvingAgainstBaseURL: false)!
            components.user = user
            components.password = password
            return components.url!
        }
        let session = session()
        #expect(try await session.get(url("/basic")).text == "welcome alice")
        #expect(try await session.get(url("/digest?algorithm=SHA-256")).text == "welcome alice (digest)")
        #expect(try await session.get(url("/basic", password: "wrong")).statusCode == 401, "a wrong one is tried once; the 401 reaches the caller")
        #expect(try await session.get(url("/basic", password: nil)).statusCode == 401, "a user without a password is no credential")
        let echoed = try await session.get(url("/headers")).text
        #expect(!echoed.contains("wonderland") && !echoed.contains("alice"), "\(echoed)")

        // Percent-encoded in the URL, decoded in the credential.
        let odd = try await HTTPTestServer(chain: lab.loopbackChain())
        let store = CredentialStore()
        store.set(alice, for: ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: true, realm: "lab", method: .httpBasic))
        let stored = self.session(store: store)
        #expect(try await stored.get(url("/basic", password: "wrong")).text == "welcome alice", "a stored credential comes first")
        var encoded = URLComponents(url: odd.url("/basic"), resolvingAgainstBaseURL: false)!
        encoded.percentEncodedUser = "al%69ce"
        encoded.percentEncodedPassword = "wonder%6Cand"
        #expect(try await session.get(encoded.url!).text == "welcome alice")
        await stored.shutdown()
        await session.shutdown()
        await odd.stop()
        await server.stop()
    }

    @Test("a password in the URL never appears in an error message")
    func urlPasswordRedacted() async throws {
        let session = session()
        for text in ["https://alice:s3cret@127.0.0.1:99999/", "ftp://alice:s3cret@127.0.0.1/"] {
            guard let url = URL(string: text) else { continue }
            await #expect("\(text)") {
                _ = try await session.get(url)
            } throws: { error in
                "\(error)".contains("alice:***@") && !"\(error)".contains("s3cret")
            }
        }
        let downgrade = SecureSessionError.insecureRedirect(from: URL(string: "https://a:s3cret@example.com/")!, to: URL(string: "http://a:s3cret@example.com/")!)
        #expect(!downgrade.description.contains("s3cret"))
        await session.shutdown()
    }

    @Test("useCredential answers; a wrong credential is offered again with previousFailureCount and then given up")
    func useCredential() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let right = RecordingHandler { _ in .useCredential(.user("alice", password: "wonderland")) }
        #expect(try await session(handler: right.handler).get(server.url("/basic")).text == "welcome alice")
        #expect(right.challenges.map(\.protectionSpace.method) == [.httpBasic])
        #expect(right.challenges.first?.protectionSpace.realm == "lab")

        let wrong = RecordingHandler { _ in .useCredential(.user("alice", password: "guess")) }
        let refused = try await session(handler: wrong.handler).get(server.url("/basic"))
        #expect(refused.statusCode == 401)
        #expect(wrong.challenges.map(\.previousFailureCount) == [0, 1, 2])
        await server.stop()
    }

    @Test("cancelAuthenticationChallenge fails the request with its own error")
    func cancel() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let handler = RecordingHandler { _ in .cancelAuthenticationChallenge }
        await #expect {
            _ = try await session(handler: handler.handler).get(server.url("/basic"))
        } throws: { error in
            guard case .challengeCancelled(let space)? = error.sessionFailureReason else { return false }
            return space.method == .httpBasic && space.realm == "lab"
        }
        await server.stop()
    }

    @Test("rejectProtectionSpace moves to the next scheme offered (Digest, then Basic)")
    func rejectProtectionSpace() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let handler = RecordingHandler { challenge in
            challenge.protectionSpace.method == .httpDigest ? .rejectProtectionSpace : .useCredential(.user("alice", password: "wonderland"))
        }
        // The digest endpoint accepts only Digest: answering Basic instead leaves it at 401.
        let response = try await session(handler: handler.handler).get(server.url("/digest"))
        #expect(handler.challenges.first.map(\.protectionSpace.method) == .httpDigest)
        #expect(handler.challenges.dropFirst().first.map(\.protectionSpace.method) == .httpBasic)
        #expect(response.statusCode == 401)
        await server.stop()
    }

    @Test("performDefaultHandling uses the store; a per-request handler takes precedence over the session's")
    func precedence() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let store = CredentialStore()
        store.set(alice, for: ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: true, realm: "lab", method: .httpBasic))
        let sessionWide = RecordingHandler { _ in .performDefaultHandling }
        let session = session(handler: sessionWide.handler, store: store)
        #expect(try await session.get(server.url("/basic")).text == "welcome alice")
        #expect(sessionWide.challenges.count == 1)
        let perRequest = RecordingHandler { _ in .cancelAuthenticationChallenge }
        var request = SecureRequest(url: server.url("/basic"))
        request.challengeHandler = perRequest.handler
        await #expect(throws: SecureSessionError.self) { _ = try await session.send(request) }
        #expect(perRequest.challenges.count == 1)
        #expect(sessionWide.challenges.count == 1)
        await session.shutdown()
        await server.stop()
    }

    @Test("server trust goes to the handler: useCredential accepts, performDefaultHandling applies the default policy")
    func serverTrustAccepted() async throws {
        let rogue = try lab.pki.issue(.server("rogue", ipAddresses: ["127.0.0.1"]), by: lab.rogueRoot)
        let server = try await HTTPTestServer(chain: [rogue])
        let accepting = RecordingHandler(trust: .useCredential(.serverTrust))
        #expect(try await session(handler: accepting.handler).get(server.url("/hello")).text == "hello")
        let challenge = try #require(accepting.trustChallenges.first)
        #expect(challenge.protectionSpace == ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: true, realm: nil, method: .serverTrust))
        #expect(challenge.serverTrust?.leaf == rogue.der)
        let defaulting = RecordingHandler(trust: .performDefaultHandling)
        await #expect {
            _ = try await session(handler: defaulting.handler).get(server.url("/hello"))
        } throws: { error in
            guard case .trustRejected? = error.sessionFailureReason else { return false }
            return true
        }
        let noCredential = RecordingHandler(trust: .useCredential(nil))
        await #expect(throws: SecureSessionError.self) { _ = try await session(handler: noCredential.handler).get(server.url("/hello")) }
        await server.stop()
    }

    @Test("server trust: a credential of another kind (a user and password, a client identity) counts as none and refuses the server")
    func serverTrustWrongCredentialKind() async throws {
        let rogue = try lab.pki.issue(.server("rogue", ipAddresses: ["127.0.0.1"]), by: lab.rogueRoot)
        let server = try await HTTPTestServer(chain: [rogue])
        let identity = try ClientIdentity(certificateChainPEM: lab.leaf.pemString, privateKeyPEM: lab.leaf.privateKeyPEM)
        // A handler written for HTTP Basic, answering every challenge with a password, and one
        // written for client certificates: neither turns TLS validation off.
        for credential in [alice, Credential.clientIdentity(identity)] {
            let handler = RecordingHandler(trust: .useCredential(credential))
            await #expect {
                _ = try await session(handler: handler.handler).get(server.url("/hello"))
            } throws: { error in
                guard case .trustRejected(let decision)? = error.sessionFailureReason else { return false }
                return decision.reason.contains("a credential of another kind (a user or a client identity), which counts as none")
            }
            #expect(handler.trustChallenges.count == 1)
        }
        await server.stop()
    }

    @Test("server trust: cancel and rejectProtectionSpace fail with their own errors")
    func serverTrustRefused() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let cancelling = RecordingHandler(trust: .cancelAuthenticationChallenge)
        await #expect {
            _ = try await session(handler: cancelling.handler).get(server.url("/hello"))
        } throws: { error in
            guard case .challengeCancelled(let space)? = error.sessionFailureReason else { return false }
            return space.method == .serverTrust
        }
        let rejecting = RecordingHandler(trust: .rejectProtectionSpace)
        await #expect {
            _ = try await session(handler: rejecting.handler).get(server.url("/hello"))
        } throws: { error in
            guard case .protectionSpaceRejected(let space)? = error.sessionFailureReason else { return false }
            return space.method == .serverTrust && space.port == server.port
        }
        await server.stop()
    }

    @Test("a request's own handler decides its server trust on a connection of its own")
    func perRequestServerTrust() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let sessionWide = RecordingHandler(trust: .performDefaultHandling)
        let session = session(handler: sessionWide.handler)
        _ = try await session.get(server.url("/hello"))
        _ = try await session.get(server.url("/hello"))
        #expect(sessionWide.trustChallenges.count == 1, "one connection, one server-trust challenge")
        let perRequest = RecordingHandler(trust: .cancelAuthenticationChallenge)
        var request = SecureRequest(url: server.url("/hello"))
        request.challengeHandler = perRequest.handler
        await #expect(throws: SecureSessionError.self) { _ = try await session.send(request) }
        #expect(perRequest.trustChallenges.count == 1)
        #expect(sessionWide.trustChallenges.count == 1)
        await session.shutdown()
        await server.stop()
    }
}
