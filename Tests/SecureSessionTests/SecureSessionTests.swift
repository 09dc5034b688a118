import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import PKIBuilder
import Testing
import TransportSecurity
import TransportSecurityNIO
import SecureSession
import TestServers

@Suite("Secure session against real servers on 127.0.0.1")
struct SecureSessionTests {
    let lab = try! TrustLab()

    func session(_ evaluator: any ServerTrustEvaluating = SecurityPolicy.default, configure: (inout SecureSessionConfiguration) -> Void = { _ in }) -> SecureSession {
        lab.session(evaluator, configure: configure)
    }

    @Test("GET over TLS with a pinned root: status, body, headers and the trust decision")
    func get() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der]))
        let response = try await session.get(server.url("/hello"))
        #expect(response.statusCode == 200)
        #expect(response.text == "hello")
        #expect(response.header("content-type") == "text/plain")
        #expect(response.header("CONTENT-TYPE") == "text/plain")
        // Field names compare without case in ASCII only (Foundation's comparison took the
        // KELVIN SIGN for a `k`).
        let request = SecureRequest(url: server.url("/"), headers: [("Keep-Alive", "timeout=5")])
        #expect(request.header("KEEP-ALIVE") == "timeout=5")
        #expect(request.header("\u{212A}eep-Alive") == nil)
        #expect(response.trustDecision?.rule == .publicKeyPinning)
        await session.shutdown()
        await server.stop()
    }

    @Test("keep-alive: sequential requests share one connection")
    func keepAlive() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        let first = try await session.get(server.url("/connection")).text
        let second = try await session.get(server.url("/connection")).text
        #expect(first == second)
        #expect(server.connections.total == 1)
        await session.shutdown()
        await server.stop()
    }

    @Test("timing: connect and TLS handshake on a new connection, none on a reused one, queueing behind the per-host limit, the server's wait")
    func timing() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let session = session { $0.connections.maximumPerHost = 1 }
        defer { Task { await session.shutdown() } }
        let first = try await session.get(server.url("/hello"))
        #expect(first.timing.reusedConnection == false)
        #expect(try #require(first.timing.connect) > .zero)
        #expect(try #require(first.timing.tlsHandshake) > .zero)
        let phases = first.timing.queueing + first.timing.connect! + first.timing.tlsHandshake! + first.timing.waiting + first.timing.download
        #expect(phases <= first.duration)

        let waited = try await session.get(server.url("/delay/200"))
        #expect(waited.timing.reusedConnection)
        #expect(waited.timing.connect == nil && waited.timing.tlsHandshake == nil)
        #expect(waited.timing.waiting >= .milliseconds(200))

        // Two at once on one connection: the second waits for the first.
        async let one = session.get(server.url("/delay/300"))
        async let two = session.get(server.url("/delay/300"))
        let queued = try await [one, two].map(\.timing.queueing).max()!
        #expect(queued >= .milliseconds(250))

        let cleartext = try await HTTPTestServer(chain: nil)
        defer { Task { await cleartext.stop() } }
        let plain = try await session.get(cleartext.url("/hello"))
        #expect(plain.timing.connect != nil && plain.timing.tlsHandshake == nil)
    }

    @Test("a rejected server fails with the engine's decision")
    func trustRejected() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(issuedBy: lab.proxyRoot))
        let session = session(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [lab.root.der]))
        await #expect {
            _ = try await session.get(server.url("/hello"))
        } throws: { error in
            guard case .trustRejected(let decision)? = error.sessionFailureReason else { return false }
            return decision.rule == .certificatePinning && decision.pinMismatch != nil
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("status and content-type validation, and validation turned off; the server's text in an error is written escaped")
    func validation() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        await #expect {
            _ = try await session.get(server.url("/status/404"))
        } throws: { error in
            guard case .unacceptableStatus(let code, let body)? = error.sessionFailureReason else { return false }
            return code == 404 && String(decoding: body, as: UTF8.self) == "status 404"
        }
        var anyStatus = SecureRequest(url: server.url("/status/503"))
        anyStatus.validation = ResponseValidation.none
        #expect(try await session.send(anyStatus).statusCode == 503)
        var wantsJSON = SecureRequest(url: server.url("/hello"))
        wantsJSON.validation = .json
        await #expect {
            _ = try await session.send(wantsJSON)
        } throws: { error in
            guard case .unacceptableContentType(let type, _)? = error.sessionFailureReason else { return false }
            return type == "text/plain"
        }
        // The server's text in an error is written with its control and bidirectional formatting
        // characters escaped: a right-to-left override in a Content-Type (bytes HTTP allows)
        // would forge the sentence where it is printed or logged.
        var spoofed = SecureRequest(.post, url: server.url("/echo"), headers: [("Content-Type", "text/\u{202E}nosj")], body: Data("x".utf8))
        spoofed.validation = .json
        await #expect {
            _ = try await session.send(spoofed)
        } throws: { error in
            "\(error)" == "unacceptable content type text/\\u{202E}nosj; expected application/json"
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("acceptable media types compare without case; */* covers every response, type/* its subtypes; a Content-Type of parameters only names no type")
    func mediaTypes() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        /// Whether a response whose Content-Type is `type` (echoed by the server) passes `acceptable`.
        func passes(_ type: String, _ acceptable: Set<String>) async throws -> Bool {
            var request = SecureRequest(.post, url: server.url("/echo"), headers: [("Content-Type", type)], body: Data("x".utf8))
            request.validation = ResponseValidation(acceptableContentTypes: acceptable)
            do {
                _ = try await session.send(request)
                return true
            } catch let sessionError as SecureSessionError where sessionError.code == .unacceptableContentType {
                return false
            }
        }
        #expect(try await passes("image/png", ["*/*"]))
        #expect(try await passes("text/html; charset=utf-8", ["Text/*"]))
        #expect(try await passes("Application/JSON", ["application/JSON"]))
        #expect(try await !passes("textual/plain", ["text/*"]))
        #expect(try await !passes("image/png", ["text/*", "application/json"]))
        #expect(try await !passes("; application/json", ["application/json"]), "parameters only: no media type")
        await session.shutdown()
        await server.stop()
    }

    @Test("JSON in and out, query items, custom headers, methods")
    func jsonAndMethods() async throws {
        struct Item: Codable, Equatable { let name: String; let count: Int }
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        let decoded = try await session.get(server.url("/json")).decode(Item.self)
        #expect(decoded == Item(name: "transport", count: 3))
        struct Other: Decodable { let name: Int }
        await #expect {
            _ = try await session.get(server.url("/json")).decode(Other.self)
        } throws: { error in
            "\(error)" == "cannot decode the response: the body is not the JSON of Other: name: expected an integer"
        }
        await #expect {
            _ = try await session.get(server.url("/hello")).decode(Item.self)
        } throws: { error in
            "\(error)" == "cannot decode the response: the body is not the JSON of Item: not JSON (invalid value around character 0)"
        }
        let echoed = try await session.json(.post, server.url("/echo"), body: Item(name: "sent", count: 7), as: Item.self)
        #expect(echoed == Item(name: "sent", count: 7))
        let echo = server.url("/echo")
        let put = try await session.put(echo, body: Data("put body".utf8), headers: [("Content-Type", "text/plain")])
        #expect(put.header("X-Method") == "PUT" && put.text == "put body" && put.header("Content-Type") == "text/plain")
        let patch = try await session.patch(echo, body: Data("patch body".utf8))
        #expect(patch.header("X-Method") == "PATCH" && patch.text == "patch body")
        let delete = try await session.delete(echo, headers: [("Content-Type", "text/x-delete")])
        #expect(delete.header("X-Method") == "DELETE" && delete.text.isEmpty && delete.header("Content-Type") == "text/x-delete")
        let head = try await session.head(server.url("/hello"))
        #expect(head.statusCode == 200)
        #expect(head.body.isEmpty)
        let headers = try await session.get(server.url("/headers"), queryItems: [URLQueryItem(name: "q", value: "a b")], headers: [("X-Trace", "42")])
        let fields = try headers.decode([String: String].self)
        #expect(fields["x-trace"] == "42")
        #expect(fields["host"] == "127.0.0.1:\(server.port)")
        #expect(headers.url.query == "q=a%20b")
        await session.shutdown()
        await server.stop()
    }

    @Test("a redirect to another host is trusted afresh: a differently issued server is refused")
    func redirectReevaluatesTrust() async throws {
        let first = try await HTTPTestServer(chain: lab.loopbackChain())
        let rogueLeaf = try lab.pki.issue(.server("localhost", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]), by: lab.proxyRoot)
        let second = try await HTTPTestServer(chain: [rogueLeaf])
        let session = session(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der]))
        let target = second.url("/hello", host: "localhost").absoluteString
        let redirect = first.url("/redirect?to=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
        await #expect {
            _ = try await session.get(redirect)
        } throws: { error in
            guard case .trustRejected? = error.sessionFailureReason else { return false }
            return true
        }
        // The same redirect within the trusted host is followed.
        let local = first.url("/redirect?to=%2Fhello&status=307")
        let followed = try await session.get(local)
        #expect(followed.text == "hello")
        #expect(followed.redirects.map(\.path) == ["/hello"])
        await session.shutdown()
        await first.stop()
        await second.stop()
    }

    @Test(
        "Authorization, Proxy-Authorization, Cookie, an API key field and a caller's Host field follow a redirect within the origin only: not to another host, nor another port of the same host; an idempotency key follows",
        arguments: [false, true]
    )
    func redirectKeepsCredentialsInTheirOrigin(http2: Bool) async throws {
        let first = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let second = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let session = session()
        func headers(after redirectTo: URL) async throws -> [String: String] {
            var request = SecureRequest(url: first.url("/redirect?to=\(redirectTo.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&status=307"))
            // The caller names the first server's virtual host itself.
            request.headers = [
                ("Authorization", "Bearer secret-token"), ("Proxy-Authorization", "Basic cHJveHk6c2VjcmV0"), ("Cookie", "session=abc"),
                ("X-Trace", "1"), ("Host", "vhost.first.test"), ("X-Api-Key", "sk_live_7f3a"), ("Idempotency-Key", "order-7"),
            ]
            return try await session.send(request).decode([String: String].self)
        }
        let sameOrigin = try await headers(after: first.url("/headers"))
        #expect(sameOrigin["authorization"] == "Bearer secret-token")
        #expect(sameOrigin["proxy-authorization"] == "Basic cHJveHk6c2VjcmV0")
        #expect(sameOrigin["cookie"] == "session=abc")
        #expect(sameOrigin["host"] == "vhost.first.test")
        #expect(sameOrigin["x-api-key"] == "sk_live_7f3a")
        for elsewhere in [second.url("/headers"), second.url("/headers", host: "localhost"), first.url("/headers", host: "localhost")] {
            let fields = try await headers(after: elsewhere)
            #expect(fields["authorization"] == nil, "\(elsewhere)")
            #expect(fields["proxy-authorization"] == nil, "\(elsewhere)")
            #expect(fields["cookie"] == nil, "\(elsewhere)")
            #expect(fields["host"] == "\(elsewhere.host!):\(elsewhere.port!)", "the new server is named by its own authority, not the first one's virtual host")
            #expect(fields["x-api-key"] == nil, "\(elsewhere)")
            #expect(fields["x-trace"] == "1" && fields["idempotency-key"] == "order-7", "other headers still follow")
        }
        await session.shutdown()
        await first.stop()
        await second.stop()
    }

    @Test("a body that carries credentials (bodyCarriesCredentials) is sent again by a 307 or 308 within its origin only: to another origin the redirect is refused, naming it, and nothing reaches there; a redirect that drops the body is followed; a body not marked follows as before")
    func credentialBodiesStayInTheirOrigin() async throws {
        let first = try await HTTPTestServer(chain: lab.loopbackChain())
        let second = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        func login(_ status: Int, to target: URL, carriesCredentials: Bool = true) -> SecureRequest {
            let moved = first.url("/redirect?status=\(status)&to=" + target.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            var request = SecureRequest.form(url: moved, fields: [("user", "alice"), ("password", "wonderland")])
            request.bodyCarriesCredentials = carriesCredentials
            return request
        }
        for status in [307, 308] {
            for elsewhere in [second.url("/collect"), first.url("/collect", host: "localhost")] {
                await #expect { try await session.send(login(status, to: elsewhere)) } throws: { error in
                    guard case .redirectRefused(status, _, elsewhere, let reason)? = error.sessionFailureReason else { return false }
                    return reason == "the request's body carries credentials, and following would send it to another origin"
                }
            }
            #expect(try await session.send(login(status, to: first.url("/collect"))).text == "noted")
        }
        #expect(second.collected.all.isEmpty && first.collected.all.count == 2, "within the origin only")
        // A 303 drops the body: followed, as a GET.
        #expect(try await session.send(login(303, to: second.url("/echo"))).header("X-Method") == "GET")
        // Not marked: the body follows a 307 wherever it leads, as curl and browsers send it.
        #expect(try await session.send(login(307, to: second.url("/collect"), carriesCredentials: false)).text == "noted")
        #expect(second.collected.all.map { String(decoding: $0, as: UTF8.self) } == ["user=alice&password=wonderland"])
        await session.shutdown()
        await first.stop()
        await second.stop()
    }

    @Test(
        "a redirect keeps the method and body, except 303 (any method but HEAD) and 301/302 after a POST, which become a GET without body or Content-Type",
        arguments: [
            (HTTPMethod.post, 303, HTTPMethod.get), (.post, 302, .get), (.post, 301, .get), (.post, 307, .post), (.post, 308, .post),
            (.put, 303, .get), (.put, 302, .put), (.patch, 301, .patch), (.delete, 307, .delete),
        ]
    )
    func redirectMethods(method: HTTPMethod, status: Int, expected: HTTPMethod) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        let request = SecureRequest(method, url: server.url("/redirect?to=/echo&status=\(status)"), headers: [("Content-Type", "text/x-sent")], body: Data("sent".utf8))
        let response = try await session.send(request)
        #expect(response.header("X-Method") == expected.rawValue)
        if expected == .get {
            #expect(response.text.isEmpty)
            #expect(response.mediaType == "application/octet-stream", "the Content-Type went with the body")
        } else {
            #expect(response.text == "sent")
            #expect(response.mediaType == "text/x-sent")
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("a POST, PUT or PATCH without a body says Content-Length: 0; a GET says nothing; a HEAD stays a HEAD after a 303; a Location that is no URL is an invalid response")
    func bodilessRequestsAndBadLocations() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        for method in [HTTPMethod.post, .put, .patch] {
            let fields = try await session.send(SecureRequest(method, url: server.url("/headers"))).decode([String: String].self)
            #expect(fields["content-length"] == "0", "\(method)")
        }
        #expect(try await session.get(server.url("/headers")).decode([String: String].self)["content-length"] == nil)
        // A HEAD stays a HEAD after a 303 (RFC 9110 §15.4.4: a GET or HEAD retrieval), as curl keeps it.
        let head = try await session.send(SecureRequest(.head, url: server.url("/redirect?to=/echo&status=303")))
        #expect(head.header("X-Method") == "HEAD")
        await #expect {
            _ = try await session.get(server.url("/redirect?to=http%3A%2F%2F%5B"))
        } throws: { error in
            guard case .invalidResponse(let reason)? = error.sessionFailureReason else { return false }
            return reason == "the redirect Location 'http://[' is not a URL"
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("an https → http redirect is refused; redirect loops stop at the limit")
    func redirectRules() async throws {
        let secure = try await HTTPTestServer(chain: lab.loopbackChain())
        let cleartext = try await HTTPTestServer(chain: nil)
        let session = session { $0.responses.maximumRedirects = 3 }
        let downgrade = secure.url("/redirect?to=\(cleartext.url("/hello").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
        await #expect {
            _ = try await session.get(downgrade)
        } throws: { error in
            guard case .insecureRedirect? = error.sessionFailureReason else { return false }
            return true
        }
        let loop = secure.url("/loop")
        await #expect {
            _ = try await session.get(loop)
        } throws: { error in
            guard case .tooManyRedirects(3)? = error.sessionFailureReason else { return false }
            return true
        }
        var notFollowed = SecureRequest(url: secure.url("/redirect?to=%2Fhello"))
        notFollowed.followsRedirects = false
        notFollowed.validation = ResponseValidation.none
        let response = try await session.send(notFollowed)
        #expect(response.statusCode == 302)
        #expect(response.text == "moved")
        await session.shutdown()
        await secure.stop()
        await cleartext.stop()
    }

    @Test("a server that never answers times out; cancelling the task cancels the request")
    func timeoutAndCancellation() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        var request = SecureRequest(url: server.url("/never"))
        request.timeout = .milliseconds(300)
        let clock = ContinuousClock()
        let started = clock.now
        await #expect {
            _ = try await session.send(request)
        } throws: { error in
            guard case .timeout? = error.sessionFailureReason else { return false }
            return true
        }
        let elapsed = clock.now - started
        // Far below the session's 60 s default; generous for a loaded machine.
        #expect(elapsed < .seconds(10), "took \(elapsed)")

        let task = Task { try await session.send(SecureRequest(url: server.url("/never"))) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        await #expect {
            _ = try await task.value
        } throws: { error in
            guard case .cancelled? = error.sessionFailureReason else { return false }
            return true
        }
        // The session still works after both.
        #expect(try await session.get(server.url("/hello")).text == "hello")
        await session.shutdown()
        await server.stop()
    }

    @Test(
        "time limits beyond what a clock counts in nanoseconds mean no limit, over HTTP/1.1 and HTTP/2; a zero or negative one times out at once",
        arguments: [false, true]
    )
    func extremeTimeLimits(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let unlimited = session {
            $0.timeouts.connect = .seconds(Int64.max)
            $0.timeouts.request = .seconds(Int64.max)
            $0.connections.idleTimeout = .seconds(Int64.max)
        }
        #expect(try await unlimited.get(server.url("/hello")).text == "hello")
        #expect(try await unlimited.get(server.url("/hello")).text == "hello")
        #expect(server.connections.total == 1)
        for limit: Duration in [.zero, .seconds(-1), .seconds(Int64.min)] {
            var request = SecureRequest(url: server.url("/hello"))
            request.timeout = limit
            await #expect("a limit of \(limit)") {
                _ = try await unlimited.send(request)
            } throws: { error in
                guard case .timeout? = error.sessionFailureReason else { return false }
                return true
            }
        }
        await unlimited.shutdown()
        let impatient = session { $0.timeouts.connect = .seconds(-1) }
        await #expect {
            _ = try await impatient.get(server.url("/hello"))
        } throws: { error in
            guard case .timeout? = error.sessionFailureReason else { return false }
            return true
        }
        await impatient.shutdown()
        await server.stop()
    }

    @Test("a timeout says what the request was doing: waiting for a pooled connection, waiting for the response, reading the body (with the bytes received)")
    func timeoutStages() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session { $0.connections.maximumPerHost = 1 }
        let key = "https://127.0.0.1:\(server.port)"
        func stage(of path: String) async -> String? {
            var request = SecureRequest(url: server.url(path))
            // Room for a new connection's handshake on a loaded machine: the stages expected
            // come after it.
            request.timeout = .seconds(1)
            do {
                _ = try await session.send(request)
                return "answered"
            } catch let sessionError as SecureSessionError where sessionError.code == .timeout {
                return sessionError.detail
            } catch {
                return "\(error)"
            }
        }
        #expect(await stage(of: "/never") == "sending the request to \(key) or waiting for its response")
        #expect(await stage(of: "/stalled-body") == "reading the response body from \(key) (10 bytes received)")
        // The only connection the per-host limit allows is held by a request that waits.
        let holder = Task { try await session.get(server.url("/never")) }
        try await Task.sleep(for: .milliseconds(500))
        #expect(await stage(of: "/hello") == "waiting for a connection to \(key)")
        holder.cancel()
        _ = try? await holder.value
        await session.shutdown()
        await server.stop()
    }

    @Test("a TCP connect that does not complete within connectTimeout is a timeout, not a connection failure")
    func connectTimeout() async throws {
        let silent = try SilentListener()
        defer { silent.stop() }
        let session = session { $0.timeouts.connect = .milliseconds(300) }
        let clock = ContinuousClock()
        let started = clock.now
        await #expect {
            _ = try await session.get(URL(string: "https://127.0.0.1:\(silent.port)/")!)
        } throws: { error in
            guard case .timeout(let limit, let stage)? = error.sessionFailureReason else { return false }
            return limit == .milliseconds(300) && stage == "connecting to 127.0.0.1:\(silent.port)"
                && "\(error)" == "timed out after 0.3 seconds while connecting to 127.0.0.1:\(silent.port)"
        }
        #expect(clock.now - started < .seconds(5))
        await session.shutdown()
    }

    @Test("a TLS handshake the server never answers is a timeout of connectTimeout, well within the request's timeout")
    func handshakeTimeout() async throws {
        // Accepts TCP connections and never says a word.
        let mute = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let session = session {
            $0.timeouts.connect = .milliseconds(300)
            $0.timeouts.request = .seconds(30)
        }
        let clock = ContinuousClock()
        let started = clock.now
        await #expect {
            _ = try await session.get(URL(string: "https://127.0.0.1:\(mute.localAddress!.port!)/")!)
        } throws: { error in
            guard case .timeout(let limit, let stage)? = error.sessionFailureReason else { return false }
            return limit == .milliseconds(300) && stage == "making the TLS handshake with https://127.0.0.1:\(mute.localAddress!.port!)"
        }
        #expect(clock.now - started < .seconds(5))
        await session.shutdown()
        try await mute.close()
    }

    @Test("https:// to a server that speaks plain HTTP is a TLS failure that says so, not BoringSSL's error dump")
    func httpsToCleartextServer() async throws {
        let cleartext = try await HTTPTestServer(chain: nil)
        let session = session()
        await #expect {
            _ = try await session.get(URL(string: "https://127.0.0.1:\(cleartext.port)/hello")!)
        } throws: { error in
            guard case .tlsFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail == "https://127.0.0.1:\(cleartext.port): the server did not answer in TLS (a plain HTTP port? use http://) [WRONG_VERSION_NUMBER]"
        }
        await session.shutdown()
        await cleartext.stop()
    }

    @Test("connection failures and bad URLs are told apart")
    func connectionFailures() async throws {
        let session = session()
        let closed = try await HTTPTestServer(chain: nil)
        let port = closed.port
        await closed.stop()
        await #expect {
            _ = try await session.get(URL(string: "https://127.0.0.1:\(port)/")!)
        } throws: { error in
            guard case .connectionFailed? = error.sessionFailureReason else { return false }
            return true
        }
        await #expect {
            _ = try await session.get(URL(string: "ftp://127.0.0.1/")!)
        } throws: { error in
            guard case .invalidURL? = error.sessionFailureReason else { return false }
            return true
        }
        await session.shutdown()
        await #expect {
            _ = try await session.get(URL(string: "https://127.0.0.1:\(port)/")!)
        } throws: { error in
            guard case .sessionShutDown? = error.sessionFailureReason else { return false }
            return true
        }
    }

    @Test("uploads stream from a file over HTTP/1.1 and HTTP/2, are sent again after a 307, meet an early answer (413) as the response, and refuse a file that cannot be sent before connecting")
    func upload() async throws {
        let directory = NSTemporaryDirectory() + "tsec-upload-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/payload.bin"
        // Letters (the test server echoes text) in a sequence no 64 KiB part repeats.
        let payload = Data((0..<(3 * 1024 * 1024 + 17)).map { (index: Int) -> UInt8 in UInt8(65 + (index / 7 + index / 65_536) % 26) })
        try payload.write(to: URL(fileURLWithPath: file))
        for http2 in [false, true] {
            let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
            let session = session()
            let echoed = try await session.send(.upload(url: server.url("/echo"), fromFile: file, contentType: "application/x-test"))
            #expect(echoed.httpVersion == (http2 ? "HTTP/2" : "HTTP/1.1"))
            #expect(echoed.header("X-Method") == "PUT" && echoed.header("Content-Type") == "application/x-test")
            #expect(echoed.body == payload, "the whole file, in order")
            // A 307 keeps the method and sends the file again from its start.
            var posted = SecureRequest.upload(.post, url: server.url("/redirect?status=307&to=/echo"), fromFile: file)
            posted.maximumResponseBodySize = 8 << 20
            let again = try await session.send(posted)
            #expect(again.redirects.count == 1 && again.header("X-Method") == "POST" && again.body == payload)
            // A server that answers before taking the body: its answer is the outcome, not the broken write.
            var refused = SecureRequest.upload(url: server.url("/refuse-upload"), fromFile: file)
            refused.validation = ResponseValidation.none
            let early = try await session.send(refused)
            #expect(early.statusCode == 413 && early.text == "too large")
            var refusedInMemory = SecureRequest(.post, url: server.url("/refuse-upload"), body: payload)
            refusedInMemory.validation = ResponseValidation.none
            #expect(try await session.send(refusedInMemory).statusCode == 413, "a body held in memory too")
            #expect(try await session.get(server.url("/hello")).text == "hello", "the session goes on")
            await session.shutdown()
            await server.stop()
        }
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        let fifo = directory + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let refusals: [(SecureRequest, String)] = [
            (.upload(url: server.url("/echo"), fromFile: directory + "/missing.bin"), "cannot send the upload file: \(directory)/missing.bin: No such file or directory"),
            (.upload(url: server.url("/echo"), fromFile: fifo), "cannot send the upload file: \(fifo): not a regular file (its length must be known before sending)"),
        ]
        for (request, message) in refusals {
            await #expect("\(message)") {
                _ = try await session.send(request)
            } throws: { error in
                guard case .unreadableUpload? = error.sessionFailureReason else { return false }
                return "\(error)" == message
            }
        }
        #expect(server.connections.total == 0, "nothing was sent")
        // A request holds one kind of body (RequestBody): setting another replaces it, so that
        // what is sent is never one of two bodies chosen silently.
        var replaced = SecureRequest.upload(url: server.url("/echo"), fromFile: file)
        replaced.body = Data("x".utf8)
        #expect(replaced.bodyFile == nil)
        var partsInstead = SecureRequest(.post, url: server.url("/echo"), body: Data("x".utf8))
        partsInstead.bodyParts = [.data(Data("y".utf8))]
        #expect(partsInstead.body == nil)
        partsInstead.body = nil
        #expect(partsInstead.bodyParts?.count == 1, "setting nil removes only its own kind")
        #expect(try await session.send(replaced).text == "x")
        #expect(try await session.send(partsInstead).text == "y")
        await session.shutdown()
        await server.stop()
    }

    @Test("decompression: asked for and decoded over HTTP/1.1 and HTTP/2 when enabled (the head then describes the decoded body), a truncated, corrupt or over-inflating body is an invalid response, nothing asked for when disabled")
    func decompression() async throws {
        let expected = String(repeating: "hello, compressed world\n", count: 100)
        for http2 in [false, true] {
            let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
            let session = session { $0.responses.decompression = .enabled() }
            let response = try await session.get(server.url("/gzipped"))
            #expect(response.text == expected)
            #expect(response.header("X-Accept-Encoding") == "deflate, gzip")
            #expect(response.header("Content-Encoding") == nil && response.header("Content-Length") == nil)
            await #expect {
                _ = try await session.get(server.url("/gzipped-truncated"))
            } throws: { error in
                guard case .invalidResponse(let detail)? = error.sessionFailureReason else { return false }
                return detail.hasSuffix("the compressed body ends before the compressed data does")
            }
            await #expect {
                _ = try await session.get(server.url("/gzipped-corrupt"))
            } throws: { error in
                guard case .invalidResponse(let detail)? = error.sessionFailureReason else { return false }
                return detail.contains("the compressed body is malformed (zlib error ")
            }
            let strict = self.session { $0.responses.decompression = .enabled(maximumRatio: 10) }
            await #expect {
                _ = try await strict.get(server.url("/gzipped"))
            } throws: { error in
                guard case .invalidResponse(let detail)? = error.sessionFailureReason else { return false }
                return detail.hasSuffix("the compressed body inflates beyond the session's decompression limit (a decompression bomb?)")
            }
            // A HEAD answer (no body) of a compressed resource is no truncated body.
            let head = try await session.head(server.url("/gzipped"))
            #expect(head.statusCode == 200 && head.body.isEmpty && head.header("Content-Encoding") == "gzip", "the head as the server sent it")
            #expect(try await session.get(server.url("/gzipped")).text == expected, "the connection goes on")
            let plain = self.session()
            let raw = try await plain.get(server.url("/gzipped"))
            #expect(raw.header("X-Accept-Encoding") == "none" && raw.body.count == 65 && raw.header("Content-Encoding") == "gzip")
            for done in [session, strict, plain] { await done.shutdown() }
            await server.stop()
        }
    }

    @Test("downloads stream to a file; a failed download leaves no file")
    func download() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        let directory = NSTemporaryDirectory() + "tsec-download-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/big.bin"
        let size = 8 * 1024 * 1024
        let reports = NIOLockedValueBox<[TransferProgress]>([])
        let response = try await session.download(SecureRequest(url: server.url("/bytes/\(size)")), to: file) { progress in
            reports.withLockedValue { $0.append(progress) }
        }
        #expect(response.statusCode == 200)
        #expect(response.body.isEmpty)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.size] as? Int) == size)
        // Progress: rising, the announced length known, ending at the whole body.
        let seen = reports.withLockedValue { $0 }
        #expect(seen.count > 10)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.bytesReceived < $1.bytesReceived })
        #expect(seen.allSatisfy { $0.expectedBytes == Int64(size) })
        #expect(seen.last == TransferProgress(bytesReceived: Int64(size), expectedBytes: Int64(size)))
        #expect(seen.last?.fractionCompleted == 1)
        // Without a length (chunked), the fraction is unknown.
        let chunked = NIOLockedValueBox<TransferProgress?>(nil)
        _ = try await session.download(SecureRequest(url: server.url("/chunked/100000")), to: file) { progress in
            chunked.withLockedValue { $0 = progress }
        }
        #expect(chunked.withLockedValue { $0 } == TransferProgress(bytesReceived: 100_000, expectedBytes: nil))
        #expect(chunked.withLockedValue { $0 }?.fractionCompleted == nil)

        let missing = directory + "/missing.bin"
        await #expect(throws: SecureSessionError.self) {
            _ = try await session.download(SecureRequest(url: server.url("/status/404")), to: missing)
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["big.bin"])
        await session.shutdown()
        await server.stop()
    }

    @Test("a download replaces an existing file only when it succeeds, never a directory (and leaves the directory's contents alone), and says why it cannot write")
    func downloadDestinations() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        let directory = NSTemporaryDirectory() + "tsec-download-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/folder", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: directory + "/folder/inside.txt"))
        await #expect {
            _ = try await session.download(SecureRequest(url: server.url("/hello")), to: directory + "/folder")
        } throws: { error in
            "\(error)" == "cannot write the download: \(directory)/folder is a directory"
        }
        #expect(try String(contentsOfFile: directory + "/folder/inside.txt", encoding: .utf8) == "keep me")
        #expect(server.connections.total == 0, "refused before the request is sent")

        let existing = directory + "/existing.txt"
        try Data("old".utf8).write(to: URL(fileURLWithPath: existing))
        await #expect(throws: SecureSessionError.self) {
            _ = try await session.download(SecureRequest(url: server.url("/status/500")), to: existing)
        }
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "old", "a failed download leaves the old file")
        _ = try await session.download(SecureRequest(url: server.url("/hello")), to: existing)
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "hello")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["existing.txt", "folder"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: "/dev").allSatisfy { !$0.contains(".part-") })

        await #expect {
            _ = try await session.download(SecureRequest(url: server.url("/hello")), to: directory + "/no/such/folder/file")
        } throws: { error in
            "\(error)".contains("No such file or directory")
        }

        // A device or a named pipe is written to, never replaced by a file (curl -o /dev/null).
        _ = try await session.download(SecureRequest(url: server.url("/hello")), to: "/dev/null")
        var status = stat()
        #expect(stat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
        let pipe = directory + "/pipe"
        #expect(mkfifo(pipe, 0o600) == 0)
        await #expect {
            _ = try await session.download(SecureRequest(url: server.url("/hello")), to: pipe)
        } throws: { error in
            "\(error)".hasSuffix("a named pipe that nobody reads")
        }
        // With a reader (opened first, without waiting for a writer), the body flows through.
        let readEnd = open(pipe, O_RDONLY | O_NONBLOCK)
        #expect(readEnd >= 0)
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) & ~O_NONBLOCK)
        // The read end stays open until the body has come: a FIFO reads as ended (0) while no
        // writer has it open, and closing the read end then would leave the download no reader.
        let reader = Task.detached { () -> String in
            defer { close(readEnd) }
            var collected: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(readEnd, &buffer, buffer.count)
                if count > 0 {
                    collected += buffer[0..<count]
                } else if count == 0, !collected.isEmpty {
                    break
                } else if count < 0, errno != EINTR {
                    break
                } else {
                    usleep(1_000)
                }
            }
            return String(decoding: collected, as: UTF8.self)
        }
        _ = try await session.download(SecureRequest(url: server.url("/hello")), to: pipe)
        #expect(await reader.value == "hello")
        #expect(stat(pipe, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        await session.shutdown()
        await server.stop()
    }

    @Test("stream hands the body over part by part, beyond the in-memory limit, over HTTP/1.1 and HTTP/2; an unacceptable response never reaches the consumer", arguments: [false, true])
    func streaming(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let session = session { $0.responses.maximumBodySize = 64 * 1024 }
        let total = 4 * 1024 * 1024
        let counter = NIOLockedValueBox((bytes: 0, parts: 0))
        let response = try await session.stream(SecureRequest(url: server.url("/bytes/\(total)"))) { part in
            counter.withLockedValue { $0 = ($0.bytes + part.count, $0.parts + 1) }
            if counter.withLockedValue({ $0.parts }) % 64 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
        #expect(response.statusCode == 200)
        #expect(response.body.isEmpty)
        #expect(counter.withLockedValue { $0.bytes } == total)
        #expect(counter.withLockedValue { $0.parts } > 1)

        // Refused from its head: the consumer sees nothing; the error carries the (small) body.
        let touched = NIOLockedValueBox(false)
        await #expect {
            _ = try await session.stream(SecureRequest(url: server.url("/status/404"))) { _ in touched.withLockedValue { $0 = true } }
        } throws: { error in
            guard case .unacceptableStatus(404, let body)? = error.sessionFailureReason else { return false }
            return String(decoding: body, as: UTF8.self) == "status 404"
        }
        #expect(!touched.withLockedValue { $0 })

        // A consumer's error ends the request, even an endless one; the session goes on.
        struct Enough: Error {}
        let seen = NIOLockedValueBox(0)
        await #expect(throws: Enough.self) {
            _ = try await session.stream(SecureRequest(url: server.url("/endless"))) { part in
                if seen.withLockedValue({ $0 += part.count; return $0 }) > 1_000_000 { throw Enough() }
            }
        }
        #expect(try await session.get(server.url("/hello")).text == "hello")

        // With a head handler: the head comes first, once; with no body, once the response is over;
        // an unacceptable response never reaches it.
        let events = NIOLockedValueBox<[String]>([])
        _ = try await session.stream(SecureRequest(url: server.url("/bytes/200000"))) { head in
            events.withLockedValue { $0.append("head \(head.statusCode) \(head.httpVersion) \(head.header("Content-Length") ?? "-")") }
        } into: { _ in
            events.withLockedValue { if $0.last != "part" { $0.append("part") } }
        }
        #expect(events.withLockedValue { $0 } == ["head 200 \(http2 ? "HTTP/2" : "HTTP/1.1") 200000", "part"])
        events.withLockedValue { $0 = [] }
        var head = SecureRequest(.head, url: server.url("/hello"))
        head.validation = ResponseValidation.none
        _ = try await session.stream(head) { head in events.withLockedValue { $0.append("head \(head.statusCode)") } } into: { _ in
            events.withLockedValue { $0.append("part") }
        }
        #expect(events.withLockedValue { $0 } == ["head 200"])
        events.withLockedValue { $0 = [] }
        await #expect(throws: SecureSessionError.self) {
            _ = try await session.stream(SecureRequest(url: server.url("/status/404"))) { _ in events.withLockedValue { $0.append("head") } } into: { _ in }
        }
        #expect(events.withLockedValue { $0 }.isEmpty)
        await session.shutdown()
        await server.stop()
    }

    @Test("a body longer than the in-memory limit ends its request, announced, chunked or endless; the request's limit wins; downloads are not bounded by it")
    func responseBodyLimit() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let limit = 256 * 1024
        let session = session { $0.responses.maximumBodySize = limit }
        #expect(try await session.get(server.url("/bytes/\(limit)")).body.count == limit)
        #expect(try await session.get(server.url("/chunked/\(limit)")).body.count == limit)
        for path in ["/bytes/\(limit + 1)", "/chunked/\(limit + 1)", "/endless"] {
            await #expect("\(path)") {
                _ = try await session.get(server.url(path))
            } throws: { error in
                guard case .responseTooLarge(limit: limit)? = error.sessionFailureReason else { return false }
                return "\(error)".contains("\(limit) bytes")
            }
        }
        var strict = SecureRequest(url: server.url("/hello"))
        strict.maximumResponseBodySize = 4
        await #expect(throws: SecureSessionError.self) { _ = try await session.send(strict) }
        strict.maximumResponseBodySize = 5
        #expect(try await session.send(strict).text == "hello")
        // The connections that carried refused bodies were closed, not given back half read.
        #expect(try await session.get(server.url("/hello")).text == "hello")

        let file = NSTemporaryDirectory() + "tsec-unbounded-\(UUID().uuidString).bin"
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try await session.download(SecureRequest(url: server.url("/bytes/\(4 * limit)")), to: file)
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) == 4 * limit)
        await session.shutdown()
        await server.stop()
    }

    @Test("the request line carries the URL's path and query as encoded; query items are encoded so that a value arrives as given")
    func requestTarget() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        let encoded = try #require(URL(string: server.url("/target").absoluteString + "/a%20b/c%2Fd%0D%0A?x=%20y%26z"))
        #expect(try await session.get(encoded).text == "/target/a%20b/c%2Fd%0D%0A?x=%20y%26z")
        let items = [URLQueryItem(name: "q", value: "a+b&c=d é#;"), URLQueryItem(name: "flag", value: nil)]
        #expect(try await session.get(server.url("/target?kept=1"), queryItems: items).text == "/target?kept=1&q=a%2Bb%26c%3Dd%20%C3%A9%23%3B&flag")
        await session.shutdown()
        await server.stop()
    }

    @Test("a request that cannot be written as it is fails with invalidRequest, and nothing is sent")
    func malformedRequests() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        let hello = server.url("/hello")
        let malformed = [
            SecureRequest(url: hello, headers: [("X-Split", "a\r\nInjected: secret")]),
            SecureRequest(url: hello, headers: [("X-Split", "a\nInjected: secret")]),
            SecureRequest(url: hello, headers: [("X-Nul", "a\u{0}secret")]),
            // Other control characters (RFC 9110 §5.5 allows only HTAB), refused before anything
            // is sent rather than met by swift-nio's encoder and taken for a bad response.
            SecureRequest(url: hello, headers: [("X-Escape", "a\u{1B}[2Jsecret")]),
            SecureRequest(url: hello, headers: [("X-Delete", "a\u{7F}secret")]),
            SecureRequest(url: hello, headers: [("Bad Name", "v")]),
            SecureRequest(url: hello, headers: [("", "v")]),
            SecureRequest(HTTPMethod(rawValue: "GET /other HTTP/1.1\r\nX:"), url: hello),
            SecureRequest(url: hello, headers: [("Host", "a.example"), ("host", "secret.example")]),
        ]
        for request in malformed {
            await #expect("\(request.method) \(request.headers)") {
                _ = try await session.send(request)
            } throws: { error in
                guard case .invalidRequest? = error.sessionFailureReason else { return false }
                return !"\(error)".contains("secret")
            }
        }
        #expect(server.connections.total == 0)
        await session.shutdown()
        await server.stop()
    }

    @Test("a body that ends with the connection, ended without TLS's close_notify, is refused (a truncation attack); with close_notify, or with its Content-Length, it is whole; a connection so ended before any answer says that instead, and one reset says so in words")
    func truncationAttack() async throws {
        let server = try PythonTLSServer(fixture: "truncating-tls", chain: lab.loopbackChain())
        defer { server.stop() }
        let session = session { $0.timeouts.request = .seconds(10) }
        await #expect {
            _ = try await session.get(server.url("/until-close-unclean"))
        } throws: { error in
            guard case .connectionFailed(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("without TLS's close_notify before the response ended") && detail.contains("truncation attack")
        }
        #expect(try await session.get(server.url("/until-close-clean")).text == "the whole body")
        #expect(try await session.get(server.url("/length-unclean")).text == "the whole body")
        await #expect {
            _ = try await session.get(server.url("/drop-unclean"))
        } throws: { error in
            guard case .connectionFailed(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("closed the connection before answering, without TLS's close_notify") && !detail.contains("truncation")
        }
        // With most of a 200 KB upload unread, closing the socket resets the connection.
        await #expect {
            _ = try await session.post(server.url("/drop-unclean"), body: Data(count: 200_000))
        } throws: { error in
            guard case .connectionFailed(let detail)? = error.sessionFailureReason else { return false }
            // The stage follows: ", while sending the request to … or waiting for its response".
            return (detail.contains("the server reset the connection (ECONNRESET), while sending the request")
                || detail.contains("the server closed the connection while the request was being written (EPIPE), while sending the request"))
        }
        await session.shutdown()
    }

    @Test("the body's framing is the session's: a caller's Content-Length or Transfer-Encoding that the body does not match is replaced, so the server neither waits for bytes that never come nor reads the next request as them")
    func framingIsTheSessions() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session { $0.timeouts.request = .seconds(5) }
        let announced = SecureRequest(url: server.url("/echo"), headers: [("Content-Length", "10")])
        #expect(try await session.send(announced).text == "")
        let mislabelled = SecureRequest(.post, url: server.url("/echo"), headers: [("Content-Length", "1"), ("Transfer-Encoding", "chunked")], body: Data("abc".utf8))
        #expect(try await session.send(mislabelled).text == "abc")
        #expect(try await session.get(server.url("/hello")).text == "hello")
        #expect(server.connections.total == 1)
        await session.shutdown()
        await server.stop()
    }

    @Test("a response that is not valid HTTP, that switches protocols, that keeps a transfer coding or that redirects to two places fails with invalidResponse and says why; a body cut short is a connection failure")
    func malformedResponses() async throws {
        let session = session()
        let cases: [(response: String, reason: String)] = [
            ("HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 200_000) + "\r\nContent-Length: 2\r\n\r\nok", "larger than swift-nio's parser accepts"),
            ("SSH-2.0-OpenSSH_9.6\r\n", "did not answer in HTTP/1.x"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nhello", "Content-Length"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", "chunked body is malformed"),
            ("HTTP/1.1 200 OK\nContent-Length: 2\n\nok", "a line that does not end in CRLF"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", "one beside Content-Length"),
            // Read until the connection closes, the body would reach the caller still encoded.
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nnot gzip", "the transfer coding 'gzip', which the session does not decode"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, identity\r\n\r\nhello", "the transfer coding 'identity'"),
            // The connection would go on in another protocol: never taken for an HTTP answer.
            ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\nframes", "101 Switching Protocols: the session speaks HTTP only"),
            ("HTTP/1.1 302 Found\r\nLocation: /a\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n", "2 different Locations ('/a', '/b')"),
        ]
        for (response, reason) in cases {
            let server = try await RawResponseServer(response: response)
            await #expect("\(reason)") {
                _ = try await session.get(server.url)
            } throws: { error in
                guard case .invalidResponse(let detail)? = error.sessionFailureReason else { return false }
                return detail.contains(reason)
            }
            await server.stop()
        }
        // A status under 100 is no interim answer but a final one (RFC 9110 §15: a server error),
        // refused by the default validation; two equal Locations are one.
        let statusBelow100 = try await RawResponseServer(response: "HTTP/1.1 099 Low\r\nContent-Length: 2\r\n\r\nok")
        await #expect {
            _ = try await session.get(statusBelow100.url)
        } throws: { error in
            guard case .unacceptableStatus(let code, let body)? = error.sessionFailureReason else { return false }
            return code == 99 && body == Data("ok".utf8)
        }
        await statusBelow100.stop()
        let target = try await RawResponseServer(response: "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\narrived")
        let sameLocationTwice = try await RawResponseServer(response: "HTTP/1.1 302 Found\r\nLocation: \(target.url)\r\nLocation: \(target.url)\r\nContent-Length: 0\r\n\r\n")
        #expect(try await session.get(sameLocationTwice.url).text == "arrived")
        await target.stop()
        await sameLocationTwice.stop()
        let truncated = try await RawResponseServer(response: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a part")
        await #expect {
            _ = try await session.get(truncated.url)
        } throws: { error in
            guard case .connectionFailed(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("closed the connection before the response ended")
        }
        await truncated.stop()
        await session.shutdown()
    }

    @Test("shutdown ends the requests in flight and those waiting for a connection, at once, with sessionShutDown")
    func shutdownInFlight() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session {
            $0.connections.maximumPerHost = 1
            $0.timeouts.request = .seconds(30)
        }
        // One request holds the only connection, unanswered; the others wait for it.
        try await expectShutdownEndsRequests(to: server.url("/never"), on: session) { server.connections.total > 0 }
        await server.stop()
    }

    @Test("a keep-alive connection on which the server sent a response nobody asked for is given up at once: the next request, a POST too, goes on a new connection and gets its own answer")
    func answersNotAskedFor() async throws {
        let session = session()
        // Bytes after the body of the first answer: a second response nobody asked for.
        let excess = try await ScriptedResponseServer(responses: [
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil",
            "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ngood",
        ])
        #expect(try await session.get(excess.url).text == "hello")
        #expect(try await session.get(excess.url).text == "good")
        #expect(excess.connections == 2)
        await excess.stop()
        // An answer written on an idle connection (a server's 408 before it closes one), which
        // the server then keeps open: the POST that follows is never written there.
        let idle = try await ScriptedResponseServer(
            responses: ["HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst", "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond"],
            unprompted: "HTTP/1.1 408 Request Timeout\r\nContent-Length: 7\r\n\r\ntimeout"
        )
        #expect(try await session.get(idle.url).text == "first")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await session.post(idle.url, body: nil).text == "second")
        #expect(idle.connections == 2)
        #expect(idle.requests == 2)
        await idle.stop()
        await session.shutdown()
    }

    @Test("connection failures read as sentences (refused, unresolvable); a port out of range is an invalid URL, never wrapped around")
    func connectionFailureMessages() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let port = server.port
        await server.stop()
        let session = session()
        await #expect {
            _ = try await session.get(URL(string: "https://127.0.0.1:\(port)/")!)
        } throws: { error in
            guard case .connectionFailed(let detail)? = error.sessionFailureReason else { return false }
            return detail == "https://127.0.0.1:\(port): the connection was refused at 127.0.0.1:\(port)"
        }
        await #expect {
            _ = try await session.get(URL(string: "https://host.invalid/")!)
        } throws: { error in
            switch error.sessionFailureReason {
            case .connectionFailed(let detail)?: return detail.hasPrefix("https://host.invalid:443: cannot resolve host.invalid: ")
            case .timeout?: return true  // a resolver that never answers
            default: return false
            }
        }
        for wrapped in [65_536 + port, 99_999] {
            await #expect {
                _ = try await session.get(URL(string: "https://127.0.0.1:\(wrapped)/")!)
            } throws: { error in
                guard case .invalidURL(let detail)? = error.sessionFailureReason else { return false }
                return detail.contains("the port \(wrapped) is not between 1 and 65535")
            }
        }
        await session.shutdown()
    }

    @Test("the per-host limit holds concurrent requests to one connection each at a time")
    func perHostLimit() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session { $0.connections.maximumPerHost = 2 }
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<12 { group.addTask { try await session.get(server.url("/hello")).text } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(bodies.count == 12)
        #expect(bodies.allSatisfy { $0 == "hello" })
        #expect(server.connections.total <= 2)
        await session.shutdown()
        await server.stop()
    }

    @Test("once the first connection says HTTP/1.1, a burst opens connections in parallel up to the per-host limit")
    func http1Burst() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session { $0.connections.maximumPerHost = 4 }
        #expect(try await session.get(server.url("/hello")).httpVersion == "HTTP/1.1")
        let clock = ContinuousClock()
        let started = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { _ = try await session.get(server.url("/delay/1000")) } }
            try await group.waitForAll()
        }
        #expect(server.connections.total == 4)
        #expect(clock.now - started < .milliseconds(3000), "four 1 s requests ran side by side (one after another: 4 s)")
        await session.shutdown()
        await server.stop()
    }

    @Test("an idempotent request that meets a connection the server dropped is retried on a new one; a POST is not, and its error says why")
    func staleConnectionRetry() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session()
        #expect(try await session.get(server.url("/once")).text == "once")
        #expect(try await session.get(server.url("/once")).text == "once")
        #expect(server.connections.total == 2)
        // A POST on a dropped connection is not repeated: the caller decides, told why.
        await #expect {
            _ = try await session.post(server.url("/once"), body: Data("x".utf8))
        } throws: { error in
            guard case .connectionFailed(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("on a connection kept from an earlier request, before any answer") && detail.contains("a POST is not sent again by itself")
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("a request that says Connection: close does not leave its connection in the pool for the next one, which the server is closing")
    func requestConnectionClose() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session { $0.connections.httpVersions = .http1Only }
        let closing = try await session.send(SecureRequest(url: server.url("/hello"), headers: [("Connection", "close")]))
        #expect(closing.text == "hello")
        #expect(session.poolStatus().first?.idle ?? 0 == 0)
        #expect(try await session.get(server.url("/hello")).timing.reusedConnection == false)
        #expect(try await session.get(server.url("/hello")).timing.reusedConnection, "the session's own requests keep theirs")
        await session.shutdown()
        await server.stop()
    }

    @Test("idle keep-alive connections expire")
    func idleExpiry() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session { $0.connections.idleTimeout = .milliseconds(100) }
        _ = try await session.get(server.url("/hello"))
        try await Task.sleep(for: .milliseconds(400))
        _ = try await session.get(server.url("/hello"))
        #expect(server.connections.total == 2)
        await session.shutdown()
        await server.stop()
    }

    @Test("a request waiting for a pooled connection still times out and can be cancelled")
    func waitingForPoolSlot() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session { $0.connections.maximumPerHost = 1 }
        // The only connection is held by a request the server never answers.
        let blocker = Task { try await session.send(SecureRequest(url: server.url("/never"))) }
        try await Task.sleep(for: .milliseconds(200))
        var waiting = SecureRequest(url: server.url("/hello"))
        waiting.timeout = .milliseconds(300)
        let clock = ContinuousClock()
        let started = clock.now
        await #expect {
            _ = try await session.send(waiting)
        } throws: { error in
            guard case .timeout? = error.sessionFailureReason else { return false }
            return true
        }
        let elapsed = clock.now - started
        // Far below the session's 60 s default; generous for a loaded machine.
        #expect(elapsed < .seconds(10), "took \(elapsed)")
        blocker.cancel()
        _ = try? await blocker.value
        // With the slot free again, requests go through.
        #expect(try await session.get(server.url("/hello")).text == "hello")
        await session.shutdown()
        await server.stop()
    }

    @Test("requests that give up while waiting for the only connection never strand the ones still waiting")
    func contentionWithDeadlines() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = session { $0.connections.maximumPerHost = 1 }
        for _ in 0..<3 {
            let outcomes = await withTaskGroup(of: (patient: Bool, succeeded: Bool).self) { group in
                for index in 0..<24 {
                    let patient = index.isMultiple(of: 2)
                    var request = SecureRequest(url: server.url("/bytes/65536"))
                    // The impatient give up at all moments of their wait, some just as they are woken.
                    request.timeout = patient ? .seconds(20) : .milliseconds(Int64(1 + index * 3))
                    group.addTask {
                        let succeeded = (try? await session.send(request))?.body.count == 65536
                        return (patient, succeeded)
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let patient = outcomes.filter { $0.patient }
            #expect(patient.count == 12)
            #expect(patient.allSatisfy { $0.succeeded }, "every patient request is served: \(patient.filter { !$0.succeeded }.count) were not")
        }
        #expect(try await session.get(server.url("/hello")).text == "hello")
        await session.shutdown()
        await server.stop()
    }

    @Test("a client identity is presented to a server that requires one")
    func mutualTLS() async throws {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let alice = try lab.pki.issue(.client("alice"), by: clientCA)
        let verifier = PeerTrustVerifier.clients(of: clientCA, at: lab.pki.now)
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), clientVerifier: verifier)
        let identity = try ClientIdentity(certificateChainPEM: alice.pemString, privateKeyPEM: alice.privateKeyPEM)
        let withIdentity = session { $0.tls.clientIdentity = identity }
        #expect(try await withIdentity.get(server.url("/hello")).text == "hello")
        let without = session()
        await #expect(throws: SecureSessionError.self) { _ = try await without.get(server.url("/hello")) }
        await withIdentity.shutdown()
        await without.shutdown()
        await server.stop()
    }
}
