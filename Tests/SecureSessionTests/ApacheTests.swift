import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

@Suite("Apache httpd asking for a client certificate in one location only (TLS renegotiation, HTTP_1_1_REQUIRED)")
struct ApacheTests {
    let lab = try! TrustLab()
    /// Apache checks client certificates against the real clock: its CA and Alice's certificate
    /// are issued on today's.
    let clientCA: IssuedCertificate
    let alice: ClientIdentity

    init() throws {
        let today = PKI(now: Date())
        clientCA = try today.issueRoot(.certificateAuthority("Apache Client CA"))
        let certificate = try today.issue(.client("alice"), by: clientCA)
        alice = try ClientIdentity(certificateChainPEM: certificate.pemString, privateKeyPEM: certificate.privateKeyPEM)
    }

    /// A body larger than one TLS record, smaller than what Apache holds while it renegotiates
    /// (`SSLRenegBufferSize`, 128 KiB).
    static let order = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 % 251) })

    @Test(
        "a location asking for a client certificate: over HTTP/1.1 Apache renegotiates TLS on the open connection and the identity is presented; over HTTP/2 it resets the stream with HTTP_1_1_REQUIRED and the request, a POST, goes again over HTTP/1.1, as do the server's later requests",
        arguments: [false, true]
    )
    func clientCertificateForOneLocation(http2: Bool) async throws {
        let server = try ApacheServer(chain: lab.loopbackChain(), clientCA: clientCA, http2: http2)
        defer { server.stop() }
        let session = lab.session { $0.tls.clientIdentity = alice }
        let open = try await session.post(server.url("/open"), body: Data("hello".utf8))
        #expect(open.statusCode == 200)
        #expect(open.header("X-Client") == "")
        #expect(open.httpVersion == (http2 ? "HTTP/2" : "HTTP/1.1"))

        let order = try await session.post(server.url("/secure/orders"), body: Self.order)
        #expect(order.statusCode == 200)
        #expect(order.header("X-Client") == "alice")
        #expect(order.httpVersion == "HTTP/1.1")
        #expect(order.body == Self.order, "the whole body reached Apache after the renegotiation")

        let later = try await session.post(server.url("/open/again"), body: Data("again".utf8))
        #expect(later.httpVersion == "HTTP/1.1", "a server that asked for HTTP/1.1 gets it from then on")
        #expect(later.header("X-Client") == "alice")
        #expect(later.text == "again")
        await session.shutdown()

        let served = try await server.served(count: http2 ? 4 : 3)
        let summary = served.map { "\($0.httpProtocol) \($0.method) \($0.path) \($0.status) \($0.clientName ?? "-")" }
        if http2 {
            #expect(summary == [
                "HTTP/2.0 POST /open 200 -",
                "HTTP/2.0 POST /secure/orders 403 -",
                "HTTP/1.1 POST /secure/orders 200 alice",
                "HTTP/1.1 POST /open/again 200 alice",
            ])
            #expect(served[2].clientPort == served[3].clientPort, "one HTTP/1.1 connection, its certificate presented once")
        } else {
            #expect(summary == ["HTTP/1.1 POST /open 200 -", "HTTP/1.1 POST /secure/orders 200 alice", "HTTP/1.1 POST /open/again 200 alice"])
            #expect(Set(served.map(\.clientPort)).count == 1, "the renegotiation happened on the connection already open")
        }
    }

    @Test("without a client identity, the location's renegotiation ends in a TLS failure saying a client certificate may be what the server wanted; the other locations answer")
    func noIdentity() async throws {
        let server = try ApacheServer(chain: lab.loopbackChain(), clientCA: clientCA, http2: true)
        defer { server.stop() }
        let session = lab.session()
        await #expect {
            _ = try await session.post(server.url("/secure/orders"), body: Self.order)
        } throws: { error in
            guard case .tlsFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("client certificate")
        }
        let open = try await session.post(server.url("/open"), body: Data("hello".utf8))
        #expect(open.statusCode == 200)
        await session.shutdown()
    }

    @Test("a challenge handler asked for the client certificate when Apache renegotiates (after HTTP_1_1_REQUIRED moved the request to HTTP/1.1): swift-nio-ssl cannot wait for it there, so the request goes again on a connection presenting its answer, and the server's later connections present it without asking")
    func challengeHandlerDuringRenegotiation() async throws {
        let server = try ApacheServer(chain: lab.loopbackChain(), clientCA: clientCA, http2: true)
        defer { server.stop() }
        let asked = RecordingHandler { _ in .useCredential(.clientIdentity(alice)) }
        let session = lab.session {
            $0.features.challengeHandler = asked.handler
            $0.connections.idleTimeout = .milliseconds(200)
        }
        let order = try await session.post(server.url("/secure/orders"), body: Self.order)
        #expect(order.statusCode == 200)
        #expect(order.header("X-Client") == "alice")
        #expect(order.body == Self.order, "the whole body reached Apache on the connection that presented the answer")
        #expect(asked.challenges.map(\.protectionSpace.method) == [.clientCertificate], "asked once, when Apache renegotiated")
        #expect(asked.challenges.first?.protectionSpace.port == server.port)

        // Once the connection has closed (idle), a new one presents the answer when Apache asks.
        try await Task.sleep(for: .milliseconds(600))
        let again = try await session.post(server.url("/secure/again"), body: Data("again".utf8))
        #expect(again.header("X-Client") == "alice")
        #expect(again.timing.reusedConnection == false)
        #expect(asked.challenges.count == 1, "not asked again")
        await session.shutdown()
        // Apache may log the refused attempts (HTTP/2's HTTP_1_1_REQUIRED, the renegotiation
        // without an answer) or not: wait for the two requests it served, not for a count of lines.
        let served = try await server.served { $0.filter { $0.status == 200 }.count >= 2 }.filter { $0.status == 200 }
        #expect(served.map(\.path) == ["/secure/orders", "/secure/again"])
        #expect(Set(served.map(\.clientPort)).count == 2)
    }

    @Test("a burst of requests to the location, each on a connection of its own that Apache renegotiates: the challenge handler is asked once, not once per connection")
    func burstAskedOnce() async throws {
        let server = try ApacheServer(chain: lab.loopbackChain(), clientCA: clientCA, http2: true)
        defer { server.stop() }
        let asked = RecordingHandler { _ in .useCredential(.clientIdentity(alice)) }
        let session = lab.session { $0.features.challengeHandler = asked.handler }
        let answers = await withTaskGroup(of: String.self) { group in
            for n in 0..<12 {
                group.addTask {
                    let answer = await Result { try await session.post(server.url("/secure/\(n)"), body: Data("order \(n)".utf8)) }
                    return (try? answer.get()).map { "\($0.header("X-Client") ?? "") \($0.text == "order \(n)")" } ?? "\(answer)"
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(answers == Array(repeating: "alice true", count: 12), "\(answers)")
        #expect(asked.challenges.count == 1, "asked \(asked.challenges.count) times")
        await session.shutdown()
    }

    @Test(
        "a challenge handler that cancels Apache's renegotiation ends the request as cancelled, and is asked again next time; one that rejects the protection space sends it again without a certificate, which Apache refuses, and is not asked again",
        arguments: [true, false]
    )
    func challengeHandlerRefusingRenegotiation(cancels: Bool) async throws {
        let disposition: ChallengeDisposition = cancels ? .cancelAuthenticationChallenge : .rejectProtectionSpace
        let server = try ApacheServer(chain: lab.loopbackChain(), clientCA: clientCA, http2: false)
        defer { server.stop() }
        let asked = RecordingHandler { _ in disposition }
        let session = lab.session { $0.features.challengeHandler = asked.handler }
        do {
            _ = try await session.post(server.url("/secure/orders"), body: Self.order)
            Issue.record("Apache took the request without a client certificate")
        } catch let sessionError as SecureSessionError where sessionError.code == .challengeCancelled {
            if case .challengeCancelled(let space) = sessionError.reason {
                #expect(cancels)
                #expect(space.method == .clientCertificate)
            }
        } catch let sessionError as SecureSessionError where sessionError.code == .tlsFailure {
            if case .tlsFailure(let detail) = sessionError.reason {
                #expect(!cancels)
                #expect(detail.contains("client certificate"), "\(detail)")
            }
        }
        #expect(asked.challenges.count == 1)
        // A cancellation is not kept (the next request asks again); an answer without a
        // certificate is (the next request presents none without asking).
        _ = try? await session.post(server.url("/secure/again"), body: Self.order)
        #expect(asked.challenges.count == (cancels ? 2 : 1))
        await session.shutdown()
    }

    @Test("Apache announces its KeepAliveTimeout to a client that sends Connection: keep-alive; the session gives up an idle connection a second before Apache closes it")
    func keepAliveTimeoutHonoured() async throws {
        let server = try ApacheServer(chain: lab.loopbackChain(), clientCA: clientCA, http2: false, keepAliveTimeout: 2)
        defer { server.stop() }
        let session = lab.session()
        let first = try await session.post(server.url("/one"), body: Data("one".utf8))
        #expect(first.header("Keep-Alive")?.hasPrefix("timeout=2") == true, "\(first.header("Keep-Alive") ?? "no Keep-Alive field")")
        #expect(try await session.post(server.url("/two"), body: Data("two".utf8)).timing.reusedConnection)
        // Idle longer than Apache's timeout less the margin, shorter than Apache's timeout.
        try await Task.sleep(for: .milliseconds(1_300))
        #expect(try await session.post(server.url("/three"), body: Data("three".utf8)).timing.reusedConnection == false)
        await session.shutdown()
        let served = try await server.served(count: 3)
        #expect(served.map(\.path) == ["/one", "/two", "/three"])
        #expect(Set(served.map(\.clientPort)).count == 2)
    }

    @Test("POSTs sent just as Apache's one-second KeepAliveTimeout runs out all succeed: without the hint, one sent as Apache closed the connection was lost with it (most runs lost one of these six) and, a POST, could not go again")
    func postsAtApacheKeepAliveTimeout() async throws {
        let server = try ApacheServer(chain: lab.loopbackChain(), clientCA: clientCA, http2: false, keepAliveTimeout: 1)
        defer { server.stop() }
        let session = lab.session()
        let (failures, reused) = try await postsAtOneSecondIdleLimit(session, to: server.url("/after"), steps: 6)
        #expect(reused == 0, "a second or less leaves no time for reuse")
        #expect(failures.isEmpty, "\(failures)")
        await session.shutdown()
    }

    @Test("Apache offering TLS 1.3 asks for the location's certificate by post-handshake authentication, which BoringSSL does not offer: refused (403); with maximumTLSVersion .tls12 it renegotiates and the identity is presented")
    func tls13LocationNeedsTLS12() async throws {
        let server = try ApacheServer(chain: lab.loopbackChain(), clientCA: clientCA, http2: false, tls13: true)
        defer { server.stop() }
        let newest = lab.session { $0.tls.clientIdentity = alice }
        await #expect {
            _ = try await newest.post(server.url("/secure/orders"), body: Self.order)
        } throws: { error in
            guard case .unacceptableStatus(let code, _)? = error.sessionFailureReason else { return false }
            return code == 403
        }
        await newest.shutdown()
        let capped = lab.session {
            $0.tls.clientIdentity = alice
            $0.tls.maximumTLSVersion = .tls12
        }
        let order = try await capped.post(server.url("/secure/orders"), body: Self.order)
        #expect(order.statusCode == 200)
        #expect(order.header("X-Client") == "alice")
        await capped.shutdown()
    }
}
