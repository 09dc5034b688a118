import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

@Suite("HTTP/2 through ALPN")
struct HTTP2Tests {
    let lab = try! TrustLab()

    func session(configure: (inout SecureSessionConfiguration) -> Void = { _ in }) -> SecureSession {
        lab.session(configure: configure)
    }

    @Test("a TLS server that offers h2 is spoken to in HTTP/2: status, headers, bodies both ways, the trust decision")
    func basics() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session()
        let hello = try await session.get(server.url("/hello"))
        #expect(hello.httpVersion == "HTTP/2")
        #expect(hello.text == "hello")
        #expect(hello.header("content-type") == "text/plain")
        #expect(hello.trustDecision?.isTrusted == true)
        let echoed = try await session.send(SecureRequest(.put, url: server.url("/echo"), headers: [("Content-Type", "text/x-test")], body: Data("payload".utf8)))
        #expect(echoed.text == "payload")
        #expect(echoed.header("x-method") == "PUT")
        #expect(server.http2StreamCount == 2)
        // A body of unannounced length: swift-nio-http2 adds `transfer-encoding: chunked` to
        // the head for HTTP/1's sake; the caller sees the fields the server sent.
        let unannounced = try await session.get(server.url("/chunked/1000"))
        #expect(unannounced.body.count == 1000)
        #expect(unannounced.header("transfer-encoding") == nil, "\(unannounced.headers)")
        await session.shutdown()
        await server.stop()
    }

    @Test("2,000 requests, 64 at once, on one HTTP/2 connection: no liveness PING is sent for streams whose response ended (the task may close its stream before the event loop has ended it); their acknowledgements had tripped the client's own flood heuristic and ended a sound connection")
    func endedStreamsSendNoPing() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = lab.session()
        let url = server.url("/hello")
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<64 {
                group.addTask {
                    var failures = 0
                    for _ in stride(from: worker, to: 2_000, by: 64) {
                        do { _ = try await session.get(url) } catch { failures += 1 }
                    }
                    return failures
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(failures == 0)
        #expect(server.connections.total == 1, "one connection carried them all")
        #expect(server.pingCount == 0, "\(server.pingCount) PINGs for streams that ended")
        // A request that gives up on its stream does send one (the liveness probe).
        var abandoned = SecureRequest(url: server.url("/never"))
        abandoned.timeout = .milliseconds(200)
        _ = try? await session.send(abandoned)
        for _ in 0..<100 where server.pingCount == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(server.pingCount >= 1, "the probe after a stream given up on")
        await session.shutdown()
        await server.stop()
    }

    @Test("a header value with a control character is an invalid response over HTTP/2 as over HTTP/1.1 (swift-nio-http2 refuses only CR, LF and NUL); a tab is a value's own")
    func controlCharacterInHeaderValue() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session()
        for value in ["red\u{1B}[31m", "bell\u{07}", "delete\u{7F}"] {
            let url = server.url("/header?name=X-Painted&value=" + value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            await #expect {
                _ = try await session.get(url)
            } throws: { error in
                guard case .invalidResponse(let detail)? = error.sessionFailureReason else { return false }
                return detail == "the value of the header x-painted holds a control character, which HTTP does not allow (RFC 9110 §5.5)"
            }
        }
        let tabbed = try await session.get(server.url("/header?name=X-Tabbed&value=a%09b"))
        #expect(tabbed.header("X-Tabbed") == "a\tb" && tabbed.httpVersion == "HTTP/2")
        // The same value over HTTP/1.1 (a raw server: swift-nio's encoder would not write it).
        let raw = try await RawResponseServer(response: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Painted: red\u{1B}[31m\r\n\r\nhi")
        await #expect {
            _ = try await session.get(raw.url)
        } throws: { error in
            guard case .invalidResponse(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("a header holds characters HTTP does not allow")
        }
        await raw.stop()
        await session.shutdown()
        await server.stop()
    }

    @Test("connection-specific header fields HTTP/2 forbids are dropped, TE but 'trailers' included (swift-nio-http2 refused the request)")
    func connectionSpecificFields() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session()
        let fields: [(name: String, value: String)] = [("Connection", "keep-alive"), ("Keep-Alive", "5"), ("Upgrade", "h2c"), ("TE", "gzip"), ("X-Kept", "1")]
        let response = try await session.get(server.url("/headers"), headers: fields)
        #expect(response.httpVersion == "HTTP/2")
        let seen = try response.decode([String: String].self)
        #expect(seen["x-kept"] == "1")
        #expect(seen["te"] == nil && seen["connection"] == nil && seen["upgrade"] == nil)
        let trailers = try await session.get(server.url("/headers"), headers: [("TE", "trailers")])
        #expect(try trailers.decode([String: String].self)["te"] == "trailers")
        await session.shutdown()
        await server.stop()
    }

    @Test("concurrent requests share one HTTP/2 connection, whatever the per-host limit: a burst waits for the first connection's protocol", arguments: [1, 6])
    func multiplexing(limit: Int) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session { $0.connections.maximumPerHost = limit }
        let connections = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<24 { group.addTask { try await session.get(server.url("/connection")).text } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(connections.count == 1)
        #expect(server.connections.total == 1)
        #expect(server.http2StreamCount == 24)
        await session.shutdown()
        await server.stop()
    }

    @Test("a request's deadline resets its own stream; the connection and the other requests go on")
    func streamTimeout() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session()
        #expect(try await session.get(server.url("/hello")).text == "hello")
        var impatient = SecureRequest(url: server.url("/never"))
        impatient.timeout = .milliseconds(300)
        let stalled = Task { () -> (any Error)? in
            do {
                _ = try await session.send(impatient)
                return nil
            } catch {
                return error
            }
        }
        #expect(try await session.get(server.url("/bytes/\(4 << 20)")).body.count == 4 << 20)
        let failure = await stalled.value
        #expect(failure.map { if case .timeout? = $0.sessionFailureReason { true } else { false } } == true, "\(String(describing: failure))")
        #expect(try await session.get(server.url("/hello")).text == "hello")
        #expect(server.connections.total == 1)
        await session.shutdown()
        await server.stop()
    }

    @Test("a reader that stops reading one stream holds back that stream alone: 4 MB more on the same connection arrive meanwhile, and the stopped body goes on when read again")
    func stoppedReader() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session()
        let (head, body) = try await session.bytes(for: SecureRequest(url: server.url("/endless")))
        #expect(head.httpVersion == "HTTP/2")
        var parts = body.makeAsyncIterator()
        #expect(try await parts.next()?.isEmpty == false)
        // The stopped stream fills its flow-control window (and the client's buffer) and waits;
        // were the connection's window spent on it, nothing more would arrive on the connection.
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await session.get(server.url("/bytes/\(4 << 20)")).body.count == 4 << 20)
        var more = 0
        while more < 1 << 20, let part = try await parts.next() { more += part.count }
        #expect(more >= 1 << 20)
        #expect(server.connections.total == 1)
        await session.shutdown()
        await server.stop()
    }

    @Test("the client's flow-control windows are open from the first round trip, as an independent server (Python's h2) sees them: 8 MiB per stream (in its SETTINGS), 16 MiB for the connection (HTTP/2's 64 KiB held a download 40 ms away to 1.6 MB/s)")
    func flowControlWindows() async throws {
        let server = try PythonTLSServer(fixture: "correct-http2", chain: lab.loopbackChain())
        defer { server.stop() }
        let session = session()
        struct Windows: Decodable, Equatable {
            let stream: Int
            let connection: Int
            let initialWindowSize: Int
        }
        let response = try await session.get(server.url("/windows"))
        #expect(response.httpVersion == "HTTP/2")
        #expect(try response.decode(Windows.self) == Windows(stream: 8 << 20, connection: 16 << 20, initialWindowSize: 8 << 20))
        await session.shutdown()
    }

    @Test("a server's graceful GOAWAY on a connection it leaves open: the client closes the connection once its streams are done, not after the idle timeout (Python's h2 server counts its open connections)")
    func goAwayLeftOpen() async throws {
        let server = try PythonTLSServer(fixture: "correct-http2", chain: lab.loopbackChain())
        defer { server.stop() }
        let session = session { $0.connections.idleTimeout = .seconds(60) }
        let answered = try await session.get(server.url("/goaway-after-answer"))
        #expect(answered.text == "going away")
        var open = ""
        for _ in 0..<50 {
            let counted = try await session.get(server.url("/open-connections"))
            #expect(counted.timing.reusedConnection == (open == "1"), "a new connection after the GOAWAY, reused later")
            open = counted.text
            if open == "1" { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(open == "1", "the connection the server went away on is closed")
        await session.shutdown()
    }

    @Test(
        "HTTP_1_1_REQUIRED before any answer, by a stream reset or a GOAWAY: the request goes again over HTTP/1.1, and the server's later requests go over HTTP/1.1 from the start (Python's h2 server)",
        arguments: ["reset", "goaway"]
    )
    func http1Required(how: String) async throws {
        let server = try PythonTLSServer(fixture: "correct-http2", chain: lab.loopbackChain())
        defer { server.stop() }
        let session = session()
        let required = try await session.get(server.url("/http11-required?how=\(how)"))
        #expect(required.httpVersion == "HTTP/1.1")
        #expect(required.text == "HTTP/1.1 /http11-required?how=\(how)")
        let later = try await session.get(server.url("/windows"))
        #expect(later.httpVersion == "HTTP/1.1")
        #expect(later.text == "HTTP/1.1 /windows")
        #expect(later.timing.reusedConnection, "the HTTP/1.1 connection of the request sent again")
        await session.shutdown()
        // Another session has not learnt it.
        let fresh = self.session()
        #expect(try await fresh.get(server.url("/windows")).httpVersion == "HTTP/2")
        await fresh.shutdown()
    }

    @Test("a graceful GOAWAY naming no stream processed, then the connection closed without TLS's close_notify (as servers that simply close their sockets do): the request goes again, whatever its method, instead of failing as a possible truncation")
    func unprocessedThenUncleanClose() async throws {
        let server = try PythonTLSServer(fixture: "correct-http2", chain: lab.loopbackChain())
        defer { server.stop() }
        let session = session()
        let got = try await session.get(server.url("/goaway-then-close?token=get"))
        #expect(got.text == "served")
        let posted = try await session.post(server.url("/goaway-then-close?token=post"), body: Data("order".utf8))
        #expect(posted.text == "served")
        await session.shutdown()
    }

    @Test("a GOAWAY with HTTP_1_1_REQUIRED that says the request's stream was processed: a GET goes again over HTTP/1.1, a POST is not sent twice")
    func http1RequiredAfterProcessing() async throws {
        let server = try PythonTLSServer(fixture: "correct-http2", chain: lab.loopbackChain())
        defer { server.stop() }
        let url = server.url("/http11-required?how=goaway-processed")
        let posting = session()
        do {
            _ = try await posting.post(url, body: Data("order".utf8))
            Issue.record("a POST the server may have processed was sent again")
        } catch let sessionError as SecureSessionError where sessionError.code == .connectionFailed {
            if case .connectionFailed(let detail) = sessionError.reason {
                #expect(!detail.contains("HTTP_1_1_REQUIRED: it requires"), "\(detail)")
            }
        }
        await posting.shutdown()
        let getting = session()
        let response = try await getting.get(url)
        #expect(response.httpVersion == "HTTP/1.1")
        await getting.shutdown()
    }

    @Test("a response head of 20 KB is taken over HTTP/2 as over HTTP/1.1 (swift-nio-http2's default header list limit of 16 KiB refused one of 17.5 KB from nginx), 70 KB from an independent HTTP/2 server (Python's h2) too; one of 100 KB is refused over both, saying why")
    func largeResponseHead() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let independent = try PythonTLSServer(fixture: "correct-http2", chain: lab.loopbackChain())
        defer { independent.stop() }
        func largeFields(_ response: SecureResponse) -> Int {
            response.headers.filter { $0.name.lowercased().hasPrefix("x-large-") }.map(\.value.count).reduce(0, +)
        }
        for versions in [HTTPVersionPolicy.automatic, .http1Only] {
            let session = session { $0.connections.httpVersions = versions }
            let large = try await session.get(server.url("/large-head?bytes=20000"))
            #expect(large.httpVersion == (versions == .automatic ? "HTTP/2" : "HTTP/1.1"))
            #expect(largeFields(large) == 20_000)
            await session.shutdown()
        }
        let session = session()
        #expect(largeFields(try await session.get(independent.url("/large-head?bytes=70000"))) == 70_000)
        // swift-nio's own HTTP/2 server sends nothing for a head of 30 KB: the refusal over HTTP/2
        // comes from the independent server.
        let refused = [(independent.url("/large-head?bytes=100000"), HTTPVersionPolicy.automatic), (server.url("/large-head?bytes=100000"), .http1Only)]
        for (url, versions) in refused {
            let session = self.session { $0.connections.httpVersions = versions }
            do {
                _ = try await session.get(url)
                Issue.record("a response head of 100 KB was taken")
            } catch {
                let said = versions == .automatic
                    ? "a frame the client could not decode (malformed, or a header block over the client's limit of 80 KiB once decoded); the client ended the connection (GOAWAY)"
                    : "the response head is larger than swift-nio's parser accepts (80 KiB)"
                #expect("\(error)".contains(said), "\(error)")
            }
            await session.shutdown()
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("a body over the in-memory limit resets its stream only; downloads stream to a file")
    func bodies() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session { $0.responses.maximumBodySize = 1 << 20 }
        await #expect {
            _ = try await session.get(server.url("/endless"))
        } throws: { error in
            guard case .responseTooLarge(limit: 1 << 20)? = error.sessionFailureReason else { return false }
            return true
        }
        let file = NSTemporaryDirectory() + "tsec-h2-\(UUID().uuidString).bin"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let downloaded = try await session.download(SecureRequest(url: server.url("/bytes/\(8 << 20)")), to: file)
        #expect(downloaded.httpVersion == "HTTP/2")
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) == 8 << 20)
        #expect(server.connections.total == 1)
        await session.shutdown()
        await server.stop()
    }

    @Test("challenges and redirects work over HTTP/2; httpVersions .http1Only keeps HTTP/1.1 with the same server")
    func challengesRedirectsAndHTTP1Only() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let store = CredentialStore()
        let alice = Credential.user("alice", password: "wonderland")
        store.set(alice, for: ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: true, realm: "lab", method: .httpBasic))
        store.set(alice, for: ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: true, realm: nil, method: .httpDigest))
        let session = session { $0.features.credentialStore = store }
        #expect(try await session.get(server.url("/basic")).text == "welcome alice")
        #expect(try await session.get(server.url("/digest?algorithm=SHA-256")).text == "welcome alice (digest)")
        let redirected = try await session.get(server.url("/redirect?to=/hello"))
        #expect(redirected.text == "hello")
        #expect(redirected.httpVersion == "HTTP/2")
        #expect(server.connections.total == 1)
        await session.shutdown()

        let http1 = self.session { $0.connections.httpVersions = .http1Only }
        let response = try await http1.get(server.url("/hello"))
        #expect(response.httpVersion == "HTTP/1.1")
        #expect(response.text == "hello")
        await http1.shutdown()
        await server.stop()
    }

    @Test("after the server's GOAWAY the connection takes no new request; an idle connection closes after the idle timeout")
    func goAwayAndIdleTimeout() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session { $0.connections.idleTimeout = .milliseconds(300) }
        #expect(try await session.get(server.url("/goaway")).text == "going away")
        // A POST is never sent twice: it must go to a new connection the first time.
        let next = try await session.send(SecureRequest(.post, url: server.url("/connection"), body: Data("once".utf8))).text
        #expect(server.connections.total == 2)
        #expect(try await session.get(server.url("/connection")).text == next)
        try await Task.sleep(for: .milliseconds(900))
        #expect(try await session.get(server.url("/connection")).text != next)
        #expect(server.connections.total == 3)
        await session.shutdown()
        await server.stop()
    }

    @Test("a hundred requests cancelled at once on one connection: the answers already on their way are ignored and the connection serves the next request (swift-nio-http2 remembers 32 reset streams unless told more)")
    func manyCancelledStreams() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session { $0.timeouts.request = .seconds(5) }
        #expect(try await session.get(server.url("/hello")).text == "hello")
        for _ in 0..<2 {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<100 {
                    let request = Task { try await session.get(server.url("/bytes/10")) }
                    group.addTask {
                        request.cancel()
                        _ = try? await request.value
                    }
                }
            }
            #expect(try await session.get(server.url("/hello")).text == "hello")
        }
        #expect(server.connections.total == 1, "the connection stayed sound")
        await session.shutdown()
        await server.stop()
    }

    @Test("a connection error of the client's own (a server's frame on a stream never opened) takes the connection out of the pool at once: its request fails without waiting for its deadline, the next gets a new connection")
    func connectionErrorClosesTheConnection() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session { $0.timeouts.request = .seconds(5) }
        #expect(try await session.get(server.url("/hello")).text == "hello")
        let clock = ContinuousClock()
        let started = clock.now
        do {
            _ = try await session.get(server.url("/protocol-violation"))
            Issue.record("a request on a connection that failed got an answer")
        } catch let sessionError as SecureSessionError where sessionError.code == .connectionFailed {
            if case .connectionFailed(let detail) = sessionError.reason {
                #expect(detail.contains("the server broke HTTP/2's rules: a frame on stream 1001, which the client never opened; the client ended the connection (GOAWAY), while "), "\(detail)")
            }
        } catch {
            Issue.record("\(error)")
        }
        #expect(clock.now - started < .seconds(2), "it failed with the connection, not at its deadline")
        // The GET failed on a reused connection before any answer, so it went once more, on a
        // second connection, which the server broke the same way; the next request has a third.
        #expect(server.connections.total == 2)
        #expect(try await session.get(server.url("/hello")).text == "hello")
        #expect(server.connections.total == 3)
        await session.shutdown()
        await server.stop()
    }

    @Test("a request the server did not process is sent again, a POST too: after a GOAWAY naming an earlier last stream on a new connection, after a REFUSED_STREAM on the same; a server refusing every time (a GOAWAY naming stream 0 on every connection, or REFUSED_STREAM) fails it after three tries, saying why", arguments: ["goaway", "refusal"])
    func unprocessedRequests(by: String) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let poster = session { $0.timeouts.request = .seconds(5) }
        let response = try await poster.send(SecureRequest(.post, url: server.url("/unprocessed?by=\(by)"), body: Data("order".utf8)))
        #expect(response.text == "processed on connection \(by == "goaway" ? 2 : 1)")
        #expect(response.httpVersion == "HTTP/2")
        await poster.shutdown()
        await server.stop()
        // A graceful GOAWAY that names no processed stream is no sign of a server rotating its
        // connections: those tries count too.
        let refusing = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let another = session { $0.timeouts.request = .seconds(5) }
        do {
            _ = try await another.get(refusing.url("/unprocessed?by=\(by)&always=1"))
            Issue.record("a refused request got an answer")
        } catch let sessionError as SecureSessionError where sessionError.code == .connectionFailed {
            if case .connectionFailed(let detail) = sessionError.reason {
                let said = by == "refusal" ? "the server refused the HTTP/2 stream (REFUSED_STREAM)" : "the server's GOAWAY (NO_ERROR) says it processed streams up to HTTP2StreamID(0)"
                #expect(detail.contains(said), "\(detail)")
            }
        }
        #expect(refusing.http2StreamCount == 3, "three tries")
        #expect(refusing.connections.total == (by == "refusal" ? 1 : 3))
        await another.shutdown()
        await refusing.stop()
    }

    @Test("after a GOAWAY with an error code (which swift-nio-http2 servers send naming stream 0 whatever they processed) only an idempotent request or one with an idempotency key goes again; a POST fails saying why")
    func unprocessedAfterAnErrorGoAway() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session { $0.timeouts.request = .seconds(5) }
        do {
            _ = try await session.send(SecureRequest(.post, url: server.url("/unprocessed?by=goaway&code=11"), body: Data("order".utf8)))
            Issue.record("a POST was sent again after a GOAWAY with an error code")
        } catch let sessionError as SecureSessionError where sessionError.code == .connectionFailed {
            if case .connectionFailed(let detail) = sessionError.reason {
                #expect(detail.contains("the server's GOAWAY (ENHANCE_YOUR_CALM) says it processed streams up to HTTP2StreamID(0)"), "\(detail)")
                #expect(detail.contains("a POST without an idempotency key is not sent again after a GOAWAY with an error code, while "), "\(detail)")
            }
        }
        #expect(try await session.get(server.url("/unprocessed?by=goaway&code=11")).text == "processed on connection 2")
        await session.shutdown()
        await server.stop()
        // A POST with a key may go again: its server processes it once.
        let another = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let poster = self.session { $0.timeouts.request = .seconds(5) }
        var keyed = SecureRequest(.post, url: another.url("/unprocessed?by=goaway&code=11"), body: Data("order".utf8))
        try keyed.setIdempotencyKey("order-1")
        #expect(try await poster.send(keyed).text == "processed on connection 2")
        await poster.shutdown()
        await another.stop()
    }

    @Test("a server gone silent: the request that timed out sends a PING; unanswered within the connect timeout, it closes the connection, whose requests fail saying so, and the next request gets a new connection")
    func silentServer() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session {
            $0.timeouts.request = .seconds(1)
            $0.timeouts.connect = .seconds(1)
        }
        #expect(try await session.get(server.url("/hello")).text == "hello")
        await #expect(throws: SecureSessionError.self) { _ = try await session.get(server.url("/blackhole")) }
        // Sent while the PING waits: it fails with the connection, not only at its deadline.
        var post = SecureRequest(.post, url: server.url("/echo"), body: Data("x".utf8))
        post.timeout = .seconds(30)
        let waiting = Task { [post] in try await session.send(post) }
        let clock = ContinuousClock()
        let started = clock.now
        do {
            _ = try await waiting.value
            Issue.record("a request on a silent connection got an answer")
        } catch let sessionError as SecureSessionError where sessionError.code == .connectionFailed {
            if case .connectionFailed(let detail) = sessionError.reason {
                #expect(detail.hasSuffix("the server did not answer a PING within 1.0 seconds; the HTTP/2 connection was closed"), "\(detail)")
            }
        }
        #expect(clock.now - started < .seconds(5))
        #expect(try await session.get(server.url("/hello")).text == "hello")
        #expect(server.connections.total == 2)
        await session.shutdown()
        await server.stop()
    }

    @Test("a request cancelled on a sound connection sends a PING that is answered: the connection goes on")
    func answeredProbe() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session { $0.timeouts.connect = .seconds(1) }
        #expect(try await session.get(server.url("/hello")).text == "hello")
        let request = Task { try await session.get(server.url("/never")) }
        try await Task.sleep(for: .milliseconds(100))
        request.cancel()
        _ = try? await request.value
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(try await session.get(server.url("/hello")).text == "hello")
        #expect(server.connections.total == 1)
        await session.shutdown()
        await server.stop()
    }

    @Test(
        "a response breaking HTTP/2's rules, from an independent server (Python's h2): an invalidResponse saying which rule, not a reset taken for the server's; a connection the client ended, a connectionFailed saying why",
        arguments: [
            ("/longer-than-announced", "invalid", "its DATA did not add up to the content-length it announced; the client reset its stream (PROTOCOL_ERROR)"),
            ("/shorter-than-announced", "invalid", "its DATA did not add up to the content-length it announced; the client reset its stream (PROTOCOL_ERROR)"),
            ("/uppercase-field", "invalid", "the header field name 'X-Upper', which HTTP/2 does not allow"),
            ("/connection-field", "invalid", "the connection-specific header field connection, which HTTP/2 forbids"),
            ("/line-break-in-value", "invalid", "the header field x-split holds a NUL, CR or LF"),
            ("/no-status", "invalid", "pseudo-header fields a response does not have (it has one: :status)"),
            ("/status-twice", "invalid", "the pseudo-header :status twice"),
            ("/status-not-a-number", "invalid", "the HTTP/2 status 'abc' is not a three-digit number"),
            ("/switching-protocols", "invalid", "the server answered 101 Switching Protocols"),
            ("/header-block-too-large", "connection", "a header block larger than the client accepts; the client ended the connection (GOAWAY)"),
            ("/reset-mid-body", "connection", "the server reset the HTTP/2 stream (INTERNAL_ERROR)"),
            ("/push-promise", "connection", "a PUSH_PROMISE, though the client turned server push off; the client ended the connection (GOAWAY)"),
            ("/ping-flood", "connection", "a flood of control frames (PING, SETTINGS) the client would have to answer; the client ended the connection"),
        ]
    )
    func brokenResponses(path: String, kind: String, reason: String) async throws {
        let server = try PythonTLSServer(fixture: "hostile-http2", chain: lab.loopbackChain())
        defer { server.stop() }
        let session = session { $0.timeouts.request = .seconds(10) }
        #expect(try await session.get(server.url("/")).text == "hello")
        do {
            let response = try await session.get(server.url(path))
            Issue.record("\(path) was answered: \(response.statusCode)")
        } catch let sessionError as SecureSessionError where sessionError.code == .invalidResponse {
            if case .invalidResponse(let detail) = sessionError.reason {
                #expect(kind == "invalid" && detail.contains(reason), "\(detail)")
            }
        } catch let sessionError as SecureSessionError where sessionError.code == .connectionFailed {
            if case .connectionFailed(let detail) = sessionError.reason {
                #expect(kind == "connection" && detail.contains(reason), "\(detail)")
            }
        }
        await session.shutdown()
    }

    @Test("a request with its own challenge handler gets an HTTP/2 connection of its own, closed after it; the shared one goes on")
    func perRequestHandler() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session()
        let shared = try await session.get(server.url("/connection")).text
        let handler = RecordingHandler(trust: .performDefaultHandling)
        for _ in 0..<2 {
            var request = SecureRequest(url: server.url("/connection"))
            request.challengeHandler = handler.handler
            let response = try await session.send(request)
            #expect(response.httpVersion == "HTTP/2")
            #expect(response.text != shared)
        }
        #expect(handler.trustChallenges.count == 2)
        #expect(server.connections.total == 3)
        #expect(try await session.get(server.url("/connection")).text == shared)
        await session.shutdown()
        await server.stop()
    }

    @Test("shutdown ends the HTTP/2 requests in flight at once")
    func shutdown() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let session = session { $0.timeouts.request = .seconds(30) }
        try await expectShutdownEndsRequests(to: server.url("/never"), on: session) { server.http2StreamCount >= 3 }
        await server.stop()
    }
}

@Suite("Informational responses")
struct InformationalResponseTests {
    @Test("a 103 Early Hints before the answer is passed over, over HTTP/1.1 and HTTP/2", arguments: [false, true])
    func earlyHints(http2: Bool) async throws {
        let lab = try TrustLab()
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let session = lab.session()
        let response = try await session.get(server.url("/early-hints"))
        #expect(response.statusCode == 200)
        #expect(response.text == "after hints")
        #expect(try await session.get(server.url("/hello")).text == "hello")
        await session.shutdown()
        await server.stop()
    }
}
