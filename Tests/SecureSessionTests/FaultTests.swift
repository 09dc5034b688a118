import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

/// Faults in the middle of traffic. For each: the request fails with its own error, which names
/// the stage it failed in; a later request on the same session succeeds; nothing is left behind
/// (no connection open at the server, nothing in use or connecting in the pool, no file
/// descriptor of the process); and no trust decision is wrong (an attacker never trusted, a
/// genuine server never refused). Each fault is bounded in time.
@Suite("Faults mid-flight", .timeLimit(.minutes(1)))
struct FaultTests {
    let lab = try! TrustLab()

    /// The process's open file descriptors.
    static func openFileDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// The descriptors open once what the process makes once is made (swift-nio's event loops,
    /// the sweeper of deadlines): a request over HTTP/1.1 and one over HTTP/2, everything
    /// closed after them.
    func baseline() async throws -> Int {
        for http2 in [false, true] {
            let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
            let session = lab.session()
            _ = try await session.get(server.url("/hello"))
            await session.shutdown()
            try await expectOpenConnections(0, on: server, after: "the warm-up")
            await server.stop()
        }
        try await Task.sleep(for: .milliseconds(50))
        return Self.openFileDescriptors()
    }

    /// Waits (up to 3 s) until the process has no more file descriptors open than `baseline`.
    static func expectDescriptors(backTo baseline: Int, after: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for _ in 0..<300 {
            if openFileDescriptors() <= baseline { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        let targets = open.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
        Issue.record("after \(after): \(openFileDescriptors()) file descriptors open, \(baseline) before: \(targets.sorted())", sourceLocation: sourceLocation)
    }

    /// The error `body` fails with; an issue when it does not fail.
    static func failure(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> SecureSessionError? {
        do {
            try await body()
            Issue.record("the request succeeded", sourceLocation: sourceLocation)
            return nil
        } catch let error as SecureSessionError {
            return error
        } catch {
            Issue.record("not a SecureSessionError: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Expects `error` to have `code` and to say every one of `words`.
    static func expect(_ error: SecureSessionError?, _ code: SecureSessionError.Code, saying words: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error else { return }
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        for word in words {
            #expect("\(error)".contains(word), "\(error) does not say \(word)", sourceLocation: sourceLocation)
        }
        #expect(error.trustDecision.map { !$0.isTrusted } ?? true, "no trusted decision rides on a failure", sourceLocation: sourceLocation)
    }

    /// Nothing in use or connecting in the session's pool.
    static func expectPoolSettled(_ session: SecureSession, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for _ in 0..<300 {
            if session.poolStatus().allSatisfy({ $0.inUse == 0 && $0.connecting == 0 }) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the pool did not settle: \(session.poolStatus())", sourceLocation: sourceLocation)
    }

    /// A GET of `url` given up after `timeout`.
    static func request(_ url: URL, timeout: Duration = .seconds(5)) -> SecureRequest {
        var request = SecureRequest(url: url)
        request.timeout = timeout
        return request
    }

    @Test("a server that dies mid-response (HTTP/1.1 and HTTP/2): the request fails reading the body, the next one succeeds on a new connection", arguments: [false, true])
    func diesMidResponse(http2: Bool) async throws {
        let baseline = try await baseline()
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let session = lab.session()
        #expect(try await session.get(server.url("/hello")).text == "hello")
        let error = await Self.failure { _ = try await session.send(Self.request(server.url("/die"))) }
        Self.expect(error, .connectionFailed, saying: ["before the response ended", "while reading the response body from", "(10 bytes received)"])
        try await expectOpenConnections(0, on: server, after: "the server died mid-response")
        #expect(try await session.get(server.url("/hello")).text == "hello")
        try await Self.expectPoolSettled(session)
        await session.shutdown()
        try await expectOpenConnections(0, on: server, after: "shutdown")
        await server.stop()
        try await Self.expectDescriptors(backTo: baseline, after: "a server died mid-response")
    }

    @Test("a server that resets the connection in the middle of the handshake: a TLS failure, no trust decision, the next server is reached")
    func resetMidHandshake() async throws {
        let baseline = try await baseline()
        let resetting = try await ResettingServer()
        let good = try await HTTPTestServer(chain: lab.loopbackChain())
        let cache = DecisionCache(capacity: 16)
        let session = lab.session { $0.tls.decisionCache = cache }
        let url = URL(string: "https://127.0.0.1:\(resetting.port)/hello")!
        let error = await Self.failure { _ = try await session.send(Self.request(url)) }
        Self.expect(error, .tlsFailure, saying: ["handshake", "reset"])
        #expect(error?.trustDecision == nil, "no chain arrived, so nothing was decided")
        #expect(resetting.connections.total >= 1)
        #expect(try await session.get(good.url("/hello")).text == "hello")
        try await Self.expectPoolSettled(session)
        #expect(!session.poolStatus().contains { $0.server.contains(":\(resetting.port)") && $0.idle + $0.multiplexed > 0 })
        await session.shutdown()
        await resetting.stop()
        await good.stop()
        try await Self.expectDescriptors(backTo: baseline, after: "a reset mid-handshake")
    }

    @Test("a server that refuses the client with a TLS alert after the certificates: a TLS failure saying so, the server was trusted and stays so, the next request with a client certificate succeeds")
    func alertAfterCertificate() async throws {
        let baseline = try await baseline()
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Fault Client CA"))
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), clientVerifier: .clients(of: clientCA, at: lab.pki.now))
        let anonymous = lab.session()
        let error = await Self.failure { _ = try await anonymous.send(Self.request(server.url("/client-certificate"))) }
        Self.expect(error, .tlsFailure, saying: ["certificate"])
        try await expectOpenConnections(0, on: server, after: "the alert")
        try await Self.expectPoolSettled(anonymous)
        await anonymous.shutdown()

        let alice = try lab.pki.issue(.client("alice"), by: clientCA)
        let identity = try ClientIdentity(certificateChainPEM: alice.pemString, privateKeyPEM: alice.privateKeyPEM)
        let identified = lab.session { $0.tls.clientIdentity = identity }
        #expect(try await identified.get(server.url("/client-certificate")).text.contains("alice"))
        await identified.shutdown()
        try await expectOpenConnections(0, on: server, after: "shutdown")
        await server.stop()
        try await Self.expectDescriptors(backTo: baseline, after: "an alert after the certificate")
    }

    @Test("slowloris, a server that stalls after the headers (HTTP/1.1 and HTTP/2): a timeout while reading the body, 0 bytes received", arguments: [false, true])
    func stallAfterHeaders(http2: Bool) async throws {
        let baseline = try await baseline()
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let session = lab.session()
        let started = ContinuousClock.now
        let error = await Self.failure { _ = try await session.send(Self.request(server.url("/head-only"), timeout: .milliseconds(400))) }
        #expect(ContinuousClock.now - started < .seconds(3), "bounded by the request's timeout")
        Self.expect(error, .timeout, saying: ["reading the response body", "(0 bytes received)"])
        #expect(try await session.get(server.url("/hello")).text == "hello")
        try await Self.expectPoolSettled(session)
        await session.shutdown()
        try await expectOpenConnections(0, on: server, after: "shutdown")
        await server.stop()
        try await Self.expectDescriptors(backTo: baseline, after: "a stall after the headers")
    }

    @Test("a server that trickles a body past the deadline: a timeout while reading the body, with the bytes received so far")
    func trickledBody() async throws {
        let baseline = try await baseline()
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session()
        let started = ContinuousClock.now
        let error = await Self.failure { _ = try await session.send(Self.request(server.url("/trickle?bytes=1000&every=20"), timeout: .milliseconds(500))) }
        #expect(ContinuousClock.now - started < .seconds(3), "each byte in time is no reprieve: the deadline is the request's")
        Self.expect(error, .timeout, saying: ["reading the response body"])
        #expect(error.map { "\($0)".contains("(0 bytes received)") } == false, "some bytes had come: \(String(describing: error))")
        try await expectOpenConnections(0, on: server, after: "the trickle timed out")
        #expect(try await session.get(server.url("/hello")).text == "hello")
        await session.shutdown()
        await server.stop()
        try await Self.expectDescriptors(backTo: baseline, after: "a trickled body")
    }

    @Test("a server restarted while requests are pooled (HTTP/1.1 and HTTP/2): the request in flight fails waiting for its response, the idle connections are not reused dead, the restarted server answers", arguments: [false, true])
    func restartWhilePooled(http2: Bool) async throws {
        let baseline = try await baseline()
        let chain = try lab.loopbackChain()
        let first = try await HTTPTestServer(chain: chain, http2: http2)
        let port = first.port
        let session = lab.session()
        // Connections in the pool: several requests at once leave several idle (one over HTTP/2).
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { _ = try await session.get(first.url("/hello")) } }
            try await group.waitForAll()
        }
        let inFlight = Task { await Self.failure { _ = try await session.send(Self.request(first.url("/never"))) } }
        while first.tally.count("/never") == 0 { try await Task.sleep(for: .milliseconds(10)) }
        await first.crash()
        // Over HTTP/2 the request in flight is tried again on a new connection (the server said
        // nothing of it), and the server is down; over HTTP/1.1 it was sent and is not.
        let error = await inFlight.value
        Self.expect(error, .connectionFailed, saying: http2 ? ["refused at 127.0.0.1:\(port)"] : ["closed the connection", "while sending the request to", "or waiting for its response"])

        let second = try await HTTPTestServer(chain: chain, http2: http2, port: port)
        for _ in 0..<3 { #expect(try await session.get(second.url("/hello")).text == "hello") }
        try await Self.expectPoolSettled(session)
        await session.shutdown()
        try await expectOpenConnections(0, on: second, after: "shutdown")
        await second.stop()
        try await Self.expectDescriptors(backTo: baseline, after: "a restart while pooled")
    }

    @Test("a name that stops resolving: the request fails resolving it, before any connection or decision; requests to a name that resolves go on beside it")
    func nameStopsResolving() async throws {
        let baseline = try await baseline()
        let server = try await HTTPTestServer(chain: lab.chain(.legitimate))
        let session = lab.session { configuration in
            configuration.connections.addressOverrides = [
                AddressOverride(host: lab.host, port: server.port, address: "127.0.0.1"),
                // The name the service moved away from: `.invalid` never resolves.
                AddressOverride(host: "gone.example.test", port: server.port, address: "gone.invalid"),
            ]
        }
        let good = URL(string: "https://\(lab.host):\(server.port)/hello")!
        let gone = URL(string: "https://gone.example.test:\(server.port)/hello")!
        #expect(try await session.get(good).text == "hello")
        let accepted = server.connections.total
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let error = await Self.failure { _ = try await session.send(Self.request(gone)) }
                Self.expect(error, .connectionFailed, saying: ["resolve", "gone.invalid"])
            }
            for _ in 0..<3 {
                group.addTask {
                    let text = try await session.get(good).text
                    #expect(text == "hello")
                }
            }
            try await group.waitForAll()
        }
        #expect(server.connections.total - accepted <= 3, "the failed name reached no server")
        #expect(!session.poolStatus().contains { $0.server.contains("gone") && $0.idle + $0.multiplexed + $0.inUse > 0 })
        try await Self.expectPoolSettled(session)
        await session.shutdown()
        try await expectOpenConnections(0, on: server, after: "shutdown")
        await server.stop()
        try await Self.expectDescriptors(backTo: baseline, after: "a name that stopped resolving")
    }

    @Test("a proxy that drops the tunnel, before opening it, right after, or in the middle of a request: a proxy failure naming the proxy, then the server is reached directly")
    func proxyDropsTunnel() async throws {
        // tinyproxy is started first: what running a process takes (its pipes, the loops that
        // watch it) is the harness's, not the session's.
        let tinyproxy = try TinyProxy()
        let baseline = try await baseline()
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let closesAtOnce = try await RawResponseServer(response: [])
        let closesAfterOpening = try await RawResponseServer(response: "HTTP/1.1 200 Connection established\r\n\r\n")
        for (proxy, opens) in [(closesAtOnce, false), (closesAfterOpening, true)] {
            let port = proxy.channel.localAddress?.port ?? 0
            let session = lab.session { $0.connections.proxies = HTTPProxySettings(https: HTTPProxy(host: "127.0.0.1", port: port)) }
            let error = await Self.failure { _ = try await session.send(Self.request(server.url("/hello"))) }
            if opens, error?.code == .tlsFailure {
                Self.expect(error, .tlsFailure, saying: ["during the handshake", "(through the proxy 127.0.0.1:\(port))"])
            } else {
                // The proxy's 200 and its close may arrive together: the tunnel never opened.
                Self.expect(error, .proxyFailure, saying: ["the proxy 127.0.0.1:\(port) closed the connection before opening the tunnel"])
            }
            try await Self.expectPoolSettled(session)
            await session.shutdown()
            await proxy.stop()
        }

        let proxied = lab.session { $0.connections.proxies = HTTPProxySettings(https: HTTPProxy(host: "127.0.0.1", port: tinyproxy.port)) }
        #expect(try await proxied.get(server.url("/hello")).text == "hello")
        let inFlight = Task { await Self.failure { _ = try await proxied.send(Self.request(server.url("/never"))) } }
        while server.tally.count("/never") == 0 { try await Task.sleep(for: .milliseconds(10)) }
        tinyproxy.stop()
        // The GET in flight is tried again on a new connection, which the dead proxy refuses.
        let error = await inFlight.value
        Self.expect(error, .connectionFailed, saying: ["through the proxy 127.0.0.1:\(tinyproxy.port)", "refused"])
        try await expectOpenConnections(0, on: server, after: "the proxy died mid-request")
        try await Self.expectPoolSettled(proxied)
        await proxied.shutdown()

        let direct = lab.session()
        #expect(try await direct.get(server.url("/hello")).text == "hello")
        await direct.shutdown()
        try await expectOpenConnections(0, on: server, after: "shutdown")
        await server.stop()
        try await Self.expectDescriptors(backTo: baseline, after: "proxies that dropped their tunnels")
    }

    @Test("a pin-set update that arrives corrupt in the middle of traffic: refused, the pins in force stay, every request goes on deciding under them, the impostor stays refused")
    func corruptPinUpdateMidTraffic() async throws {
        let baseline = try await baseline()
        let signer = PinUpdateSigningKey(generating: .p256)
        let host = "pinned.example.test"
        let genuine = [try lab.pki.issue(.server(host), by: lab.intermediate), lab.intermediate]
        let impostor = [try lab.pki.issue(.server(host), by: lab.proxyRoot)]
        let server = try await HTTPTestServer(chain: genuine)
        let intercepting = try await HTTPTestServer(chain: impostor)
        let publisher = try await HTTPTestServer(chain: lab.loopbackChain())
        let registry = PinSetRegistry(publicKey: try signer.publicKey, clock: { [lab] in lab.pki.now })
        func document(_ version: Int) -> [UInt8] {
            let now = lab.pki.now
            return Array("""
                {"version":\(version),"issuedAt":"\(now.addingTimeInterval(-60).formatted(.iso8601))","expiresAt":"\(now.addingTimeInterval(86_400).formatted(.iso8601))","domains":{"\(host)":{"pins":["\(genuine[0].der.spkiPin)","\(SPKIPin(subjectPublicKeyInfoDER: [7]))"]}}}
                """.utf8)
        }
        let one = document(1)
        _ = try registry.offer(document: one, signatureText: PinUpdateSignature.encode(try signer.sign(one)))
        let session = lab.session { configuration in
            configuration.connections.addressOverrides = [
                AddressOverride(host: host, port: server.port, address: "127.0.0.1"),
                AddressOverride(host: host, port: intercepting.port, address: "127.0.0.1"),
            ]
            configuration.connections.maximumPerHost = 2
            configuration.tls.pinSetRegistry = registry
        }
        let fetcher = lab.session()
        let updater = PinSetUpdater(registry: registry, session: fetcher, documentURL: publisher.url("/files/pins.json"))
        let two = document(2)
        let corruptions: [(document: String, signature: String)] = [
            (String(decoding: two, as: UTF8.self), PinUpdateSignature.encode(try signer.sign(one))),  // another document's signature
            (String(decoding: two.prefix(40), as: UTF8.self), PinUpdateSignature.encode(try signer.sign(Array(two.prefix(40))))),  // cut short, signed
            (String(decoding: two, as: UTF8.self), "not a signature"),
            (String(decoding: two.map { $0 == UInt8(ascii: "2") ? UInt8(ascii: "3") : $0 }, as: UTF8.self), PinUpdateSignature.encode(try signer.sign(two))),  // altered after signing
        ]
        let genuineURL = URL(string: "https://\(host):\(server.port)/hello")!
        let impostorURL = URL(string: "https://\(host):\(intercepting.port)/hello")!
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for (document, signature) in corruptions {
                    publisher.files["pins.json"] = document
                    publisher.files["pins.json.sig"] = signature
                    await #expect(throws: (any Error).self) { try await updater.updateNow() }
                    #expect(registry.version == 1, "a corrupt update changed nothing")
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<10 {
                        let response = try await session.get(genuineURL)
                        #expect(response.text == "hello")
                        #expect(response.trustDecision?.checks.contains { $0.passed && $0.name.contains("signed document v1") } == true, "\(String(describing: response.trustDecision?.decidedBy)) \(String(describing: response.trustDecision?.checks))")
                        let refused = await Self.failure { _ = try await session.send(Self.request(impostorURL)) }
                        #expect(refused?.code == .trustRejected, "\(String(describing: refused))")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(intercepting.requestCount == 0, "the impostor received no request")
        #expect(registry.version == 1)
        try await Self.expectPoolSettled(session)
        await session.shutdown()
        await fetcher.shutdown()
        try await expectOpenConnections(0, on: server, after: "shutdown")
        try await expectOpenConnections(0, on: intercepting, after: "shutdown")
        for server in [server, intercepting, publisher] { await server.stop() }
        try await Self.expectDescriptors(backTo: baseline, after: "corrupt pin updates")
    }

    @Test("the decision cache full: with room for two decisions and seven servers, genuine and impostors, judged at once, every impostor is refused and every genuine server trusted, whatever was evicted")
    func decisionCacheFull() async throws {
        let baseline = try await baseline()
        let kinds: [(TrustLab.Server, trusted: Bool)] = [
            (.legitimate, true), (.reissuedSameKey, true), (.reissuedNewKey, true),
            (.interceptingProxy, false), (.untrustedRoot, false), (.appendedGenuineChain, false), (.expired, false),
        ]
        var started: [(server: HTTPTestServer, trusted: Bool, kind: TrustLab.Server)] = []
        for (kind, trusted) in kinds { started.append((try await HTTPTestServer(chain: lab.chain(kind)), trusted, kind)) }
        let servers = started
        let cache = DecisionCache(capacity: 2)
        // Pinned to the lab's root key: the intercepting proxy's chain validates, and only the pin stops it.
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der])
        let overrides = servers.map { AddressOverride(host: lab.host, port: $0.server.port, address: "127.0.0.1") }
        let sessions = (0..<4).map { _ in
            lab.session(policy) { configuration in
                configuration.connections.addressOverrides = overrides
                configuration.tls.decisionCache = cache
            }
        }
        let wrong = try await withThrowingTaskGroup(of: [String].self) { group in
            for (index, session) in sessions.enumerated() {
                group.addTask {
                    var wrong: [String] = []
                    for round in 0..<6 {
                        for (server, trusted, kind) in servers.shuffled() {
                            // A new connection each time: every request is judged (or found in the cache).
                            var request = Self.request(URL(string: "https://\(lab.host):\(server.port)/hello")!)
                            request.headers.append((name: "Connection", value: "close"))
                            do {
                                let response = try await session.send(request)
                                if !trusted { wrong.append("session \(index) round \(round): \(kind) trusted (\(String(describing: response.trustDecision)))") }
                            } catch let error as SecureSessionError where error.code == .trustRejected {
                                if trusted { wrong.append("session \(index) round \(round): \(kind) refused: \(error)") }
                            }
                        }
                    }
                    return wrong
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        for (server, trusted, kind) in servers where !trusted {
            #expect(server.requestCount == 0, "\(kind) received no request")
        }
        for session in sessions {
            try await Self.expectPoolSettled(session)
            await session.shutdown()
        }
        for (server, _, kind) in servers {
            try await expectOpenConnections(0, on: server, after: "shutdown (\(kind))")
            await server.stop()
        }
        try await Self.expectDescriptors(backTo: baseline, after: "a full decision cache")
    }
}
