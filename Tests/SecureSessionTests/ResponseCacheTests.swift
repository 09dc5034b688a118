import Foundation
import MetricsTestKit
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

/// The session's response cache against a real server on 127.0.0.1 (`/cached` counts the
/// requests it receives per key, so a test sees which ones reached it).
@Suite("Response cache")
struct ResponseCacheTests {
    let lab = try! TrustLab()

    func session(_ cache: ResponseCache, _ evaluator: any ServerTrustEvaluating = SecurityPolicy.default) -> SecureSession {
        lab.session(evaluator) { $0.responses.cache = cache }
    }

    func request(_ url: URL, policy: RequestCachePolicy = .useProtocolCachePolicy, headers: [(name: String, value: String)] = []) -> SecureRequest {
        var request = SecureRequest(url: url, headers: headers)
        request.cachePolicy = policy
        return request
    }

    @Test("a fresh response answers again without the network, held, streamed, downloaded or read as bytes: its Age, the trust decision that brought it", arguments: [false, true])
    func fresh(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        let cache = ResponseCache()
        let session = session(cache)
        let url = server.url("/cached?key=fresh&cc=max-age=60")
        let first = try await session.get(url)
        #expect(first.source == .network)
        #expect(first.text == "body 1 of fresh")
        #expect(first.header("Age") == nil)
        let second = try await session.get(url)
        #expect(second.source == .cache)
        #expect(second.text == "body 1 of fresh")
        #expect(second.header("Age") == "0")
        #expect(second.trustDecision?.isTrusted == true)
        #expect(second.trustDecision?.decidedBy == first.trustDecision?.decidedBy)
        #expect(second.tlsVersion == first.tlsVersion)
        #expect(second.httpVersion == (http2 ? "HTTP/2" : "HTTP/1.1"))
        #expect(second.timing.connect == nil && !second.timing.reusedConnection)

        let streamed = PartsBox()
        let viaStream = try await session.stream(SecureRequest(url: url)) { streamed.append($0) }
        #expect(viaStream.source == .cache)
        #expect(String(decoding: streamed.all, as: UTF8.self) == "body 1 of fresh")
        let folder = NSTemporaryDirectory() + "tsec-cache-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let downloaded = try await session.download(SecureRequest(url: url), to: folder + "/body")
        #expect(downloaded.source == .cache)
        #expect(try String(contentsOfFile: folder + "/body", encoding: .utf8) == "body 1 of fresh")
        let (head, body) = try await session.bytes(for: SecureRequest(url: url))
        var read = Data()
        for try await part in body { read.append(part) }
        #expect(head.statusCode == 200)
        #expect(String(decoding: read, as: UTF8.self) == "body 1 of fresh")

        #expect(server.tally.count("fresh") == 1, "every request after the first was answered by the cache")
        #expect(cache.count == 1)
        await session.shutdown()
        await server.stop()
    }

    @Test("a response to revalidate (no-cache, or stale) with an ETag or a Last-Modified: the server's 304 answers with the kept body and the head it updates", arguments: ["etag=1", "modified=1"])
    func revalidated(validator: String) async throws {
        let server = try await HTTPTestServer(chain: nil)
        let session = session(ResponseCache())
        let url = server.url("/cached?key=k&cc=no-cache&\(validator)")
        let first = try await session.get(url)
        #expect(first.text == "body 1 of k")
        let second = try await session.get(url)
        #expect(second.source == .revalidated)
        #expect(second.statusCode == 200)
        #expect(second.text == "body 1 of k", "the kept body")
        #expect(second.header("X-Revalidated") == "2")
        #expect(second.header("X-Request-Number") == "2", "the 304's fields replace the kept ones")
        #expect(second.header("Content-Length") == "11", "the kept body's length, not the 304's")
        #expect(server.tally.count("k") == 2)
        let metrics = TestMetrics()
        let counted = lab.session { $0.responses.cache = ResponseCache(); $0.metricsFactory = metrics }
        for _ in 0..<3 { _ = try await counted.get(url) }
        _ = try await counted.get(server.url("/cached?key=fresh&cc=max-age=60"))
        _ = try await counted.get(server.url("/cached?key=fresh&cc=max-age=60"))
        _ = try await counted.post(url, body: nil)
        let lookups = "secure_session_cache_lookups_total"
        #expect(metrics.counterTotal(label: lookups, dimensions: [("result", "miss")]) == 2)
        #expect(metrics.counterTotal(label: lookups, dimensions: [("result", "revalidated")]) == 2)
        #expect(metrics.counterTotal(label: lookups, dimensions: [("result", "hit")]) == 1)
        #expect(metrics.counterTotal(label: lookups) == 5, "the POST bypassed the cache")
        await counted.shutdown()

        // Stale by its Age: revalidated the same way.
        let aged = try await session.get(server.url("/cached?key=aged&cc=max-age=60&age=100&\(validator)"))
        #expect(aged.source == .network)
        #expect(try await session.get(server.url("/cached?key=aged&cc=max-age=60&age=100&\(validator)")).source == .revalidated)
        await session.shutdown()
        await server.stop()
    }

    @Test("a stale response without validators is loaded anew and replaced; forgotten when the new answer may not be kept")
    func staleWithoutValidators() async throws {
        let server = try await HTTPTestServer(chain: nil)
        let cache = ResponseCache()
        let session = session(cache)
        let url = server.url("/cached?key=s&cc=max-age=0")
        #expect(try await session.get(url).text == "body 1 of s")
        let second = try await session.get(url)
        #expect(second.source == .network)
        #expect(second.text == "body 2 of s")
        #expect(cache.count == 1, "replaced, not added")
        #expect(try await session.send(request(url, policy: .returnCacheDataElseLoad)).text == "body 2 of s")

        let forbidden = server.url("/cached?key=n&cc=max-age=0&nostore-after=1")
        _ = try await session.get(forbidden)
        #expect(cache.count == 2)
        #expect(try await session.get(forbidden).text == "body 2 of n")
        #expect(cache.count == 1, "the new answer says no-store: the stale one it replaces is forgotten, not kept")
        #expect(try await session.send(request(forbidden, policy: .returnCacheDataElseLoad)).text == "body 3 of n")
        await session.shutdown()
        await server.stop()
    }

    @Test("only a response from the server sets cookies: a kept response revalidated by a 304, or answering stale after a failure, does not write its stored Set-Cookie back into the jar (a logged-out session stays logged out)")
    func keptResponsesSetNoCookies() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let cache = ResponseCache()
        let jar = CookieJar()
        let session = lab.session { $0.responses.cache = cache; $0.features.cookieJar = jar }
        for (key, query, expected) in [
            ("revalidated", "cc=no-cache&etag=1", ResponseSource.revalidated),
            ("stale", "cc=max-age=60,stale-if-error=100&age=100&fail-after=1&fail=503", .staleAfterFailure(reason: "HTTP 503 Service Unavailable")),
        ] {
            let url = server.url("/cached?key=\(key)&\(query)&cookie=sid%3D\(key)-session%3B%20Path%3D%2F")
            let first = try await session.get(url)
            #expect(first.source == .network && jar.cookies.map(\.name) == ["sid"], "\(key)")
            jar.removeAll()  // the user logs out
            let kept = try await session.get(url)
            #expect(kept.source == expected, "\(key)")
            #expect(kept.header("Set-Cookie") == "sid=\(key)-session; Path=/", "the kept head still says it, for the caller")
            #expect(jar.cookies.isEmpty, "\(key): the kept Set-Cookie came back into the jar")
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("stale-if-error (RFC 5861): a server's 503, a closed connection or a timeout answered with the stale response within its window, whose source says what failed and whose server error's body never reaches the caller; past the window, or refused by the request, the failure reaches the caller")
    func staleIfError() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let metrics = TestMetrics()
        let session = lab.session { $0.responses.cache = ResponseCache(); $0.metricsFactory = metrics }
        let window = "cc=max-age=60,stale-if-error=100&age=100"
        let url = server.url("/cached?key=e&\(window)&fail-after=1")
        #expect(try await session.get(url).source == .network)
        let streamed = PartsBox()
        let stale = try await session.stream(SecureRequest(url: url)) { streamed.append($0) }
        #expect(stale.source == .staleAfterFailure(reason: "HTTP 503 Service Unavailable"))
        #expect(stale.statusCode == 200)
        #expect(String(decoding: streamed.all, as: UTF8.self) == "body 1 of e", "the 503's body was withheld")
        #expect(Int(stale.header("Age") ?? "") ?? 0 >= 100)
        #expect(server.tally.count("e") == 2, "the server was asked")
        var refusing = request(url, headers: [("Cache-Control", "stale-if-error=0")])
        refusing.validation = ResponseValidation.none
        let refused = try await session.send(refusing)
        #expect(refused.source == .network)
        #expect(refused.statusCode == 503 && refused.text == "failure 3")
        #expect(metrics.counterTotal(label: "secure_session_cache_lookups_total", dimensions: [("result", "stale")]) == 1)

        let pastWindow = server.url("/cached?key=p&cc=max-age=60,stale-if-error=100&age=200&fail-after=1")
        _ = try await session.get(pastWindow)
        var late = request(pastWindow)
        late.validation = ResponseValidation.none
        let failure = try await session.send(late)
        #expect(failure.source == .network && failure.statusCode == 503 && failure.text == "failure 2")

        let closing = server.url("/cached?key=c&\(window)&fail-after=1&fail=close")
        _ = try await session.get(closing)
        let afterClose = try await session.get(closing)
        guard case .staleAfterFailure(let reason) = afterClose.source else {
            Issue.record("source: \(afterClose.source)")
            return
        }
        #expect(reason.hasPrefix("connection failed"), "\(reason)")
        #expect(afterClose.text == "body 1 of c")

        let hanging = server.url("/cached?key=h&\(window)&fail-after=1&fail=hang")
        _ = try await session.get(hanging)
        var impatient = request(hanging)
        impatient.timeout = .milliseconds(300)
        let afterTimeout = try await session.send(impatient)
        guard case .staleAfterFailure(let timeout) = afterTimeout.source else {
            Issue.record("source: \(afterTimeout.source)")
            return
        }
        #expect(timeout.hasPrefix("timed out after 0.3 seconds"), "\(timeout)")
        #expect(afterTimeout.text == "body 1 of h")
        await session.shutdown()
        await server.stop()
    }

    @Test("stale-while-revalidate (RFC 5861): a stale response within its window answers at once and is revalidated in the background, by a 304 (the head it updates seen next) or a new body (answering next); a revalidation meeting a 503 leaves it in place")
    func staleWhileRevalidate() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let metrics = TestMetrics()
        let session = lab.session { $0.responses.cache = ResponseCache(); $0.metricsFactory = metrics }
        let validated = server.url("/cached?key=v&cc=max-age=0,stale-while-revalidate=60&etag=1")
        #expect(try await session.get(validated).source == .network)
        let second = try await session.get(validated)
        #expect(second.source == .staleWhileRevalidating)
        #expect(second.text == "body 1 of v")
        #expect(second.header("X-Revalidated") == nil)
        let confirmed = try await eventually { try await session.get(validated) } until: { $0.header("X-Revalidated") != nil }
        #expect(confirmed.source == .staleWhileRevalidating)
        #expect(confirmed.text == "body 1 of v", "confirmed by a 304: the kept body")

        let replaced = server.url("/cached?key=r&cc=max-age=0,stale-while-revalidate=60")
        _ = try await session.get(replaced)
        #expect(try await session.get(replaced).text == "body 1 of r")
        let newer = try await eventually { try await session.get(replaced) } until: { $0.text != "body 1 of r" }
        #expect(newer.source == .staleWhileRevalidating)
        #expect(newer.text.hasPrefix("body ") && newer.text.hasSuffix(" of r"))

        // A revalidation that meets a server error leaves the kept response in place.
        let failing = server.url("/cached?key=f&cc=max-age=0,stale-while-revalidate=60&fail-after=1")
        _ = try await session.get(failing)
        #expect(try await session.get(failing).source == .staleWhileRevalidating)
        _ = try await eventually { try await session.get(failing) } until: { _ in server.tally.count("f") >= 3 }
        let afterFailure = try await session.get(failing)
        #expect(afterFailure.source == .staleWhileRevalidating)
        #expect(afterFailure.text == "body 1 of f")
        let lookups = "secure_session_cache_lookups_total"
        #expect(metrics.counterTotal(label: lookups, dimensions: [("result", "miss")]) == 3, "background loads are not lookups")
        #expect(metrics.counterTotal(label: lookups) == metrics.counterTotal(label: lookups, dimensions: [("result", "stale")]) + 3)
        await session.shutdown()
        await server.stop()
    }

    /// The first value of `body` that meets `condition`, asking every 20 ms for up to 5 s.
    func eventually(_ body: () async throws -> SecureResponse, until condition: (SecureResponse) -> Bool) async throws -> SecureResponse {
        let clock = ContinuousClock()
        let end = clock.now + .seconds(5)
        while true {
            let value = try await body()
            if condition(value) || clock.now > end { return value }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test("request policies and directives: reload, cache else load, cache only (nothing sent when nothing is kept), only-if-cached, max-stale, no-cache, no-store, Pragma")
    func requestPolicies() async throws {
        let server = try await HTTPTestServer(chain: nil)
        let cache = ResponseCache()
        let session = session(cache)
        let url = server.url("/cached?key=p&cc=max-age=0&etag=1")
        await #expect(throws: SecureSessionError.self) { try await session.send(request(url, policy: .returnCacheDataDontLoad)) }
        do {
            _ = try await session.send(request(url, policy: .returnCacheDataDontLoad))
        } catch {
            #expect("\(error)".contains("no response kept in the cache may answer"))
            #expect((error as? SecureSessionError)?.kind == "not_cached")
        }
        await #expect(throws: SecureSessionError.self) { try await session.send(request(url, headers: [("Cache-Control", "only-if-cached")])) }
        #expect(server.tally.count("p") == 0, "nothing was sent")

        #expect(try await session.get(url).text == "body 1 of p")
        let elseLoad = try await session.send(request(url, policy: .returnCacheDataElseLoad))
        #expect(elseLoad.source == .cache && elseLoad.text == "body 1 of p", "however old")
        #expect(try await session.send(request(url, policy: .returnCacheDataDontLoad)).source == .cache)
        #expect(try await session.send(request(url, headers: [("Cache-Control", "max-stale=3600")])).source == .cache)
        await #expect(throws: SecureSessionError.self, "stale, and only-if-cached forbids revalidating") {
            try await session.send(request(url, headers: [("Cache-Control", "only-if-cached")]))
        }
        #expect(server.tally.count("p") == 1)

        let reloaded = try await session.send(request(url, policy: .reloadIgnoringCacheData))
        #expect(reloaded.source == .network && reloaded.text == "body 2 of p", "not conditional: a whole new response")
        #expect(try await session.send(request(url, policy: .returnCacheDataElseLoad)).text == "body 2 of p", "and kept")

        let fresh = server.url("/cached?key=f&cc=max-age=60&etag=1")
        _ = try await session.get(fresh)
        #expect(try await session.send(request(fresh, headers: [("Cache-Control", "no-cache")])).source == .revalidated)
        #expect(try await session.send(request(fresh, headers: [("Pragma", "no-cache")])).source == .revalidated)
        #expect(try await session.send(request(fresh, headers: [("Cache-Control", "max-age=0")])).source == .revalidated)
        #expect(try await session.send(request(fresh, headers: [("Cache-Control", "max-age=600"), ("Pragma", "no-cache")])).source == .cache,
            "Pragma counts only without Cache-Control")
        let unkept = try await session.send(request(fresh, headers: [("Cache-Control", "no-store")]))
        #expect(unkept.source == .network && unkept.text == "body 5 of f")
        #expect(try await session.get(fresh).text == "body 1 of f", "no-store neither used nor replaced what was kept")
        await session.shutdown()
        await server.stop()
    }

    @Test("not kept: no-store, Vary: *, a status not cacheable by default without a freshness, a body over the entry size (which the caller still gets whole), a request with its own conditions")
    func notKept() async throws {
        let server = try await HTTPTestServer(chain: nil)
        let cache = ResponseCache(capacity: 1 << 20, maximumEntrySize: 1_000)
        let session = session(cache)
        for (key, query) in [("a", "cc=no-store"), ("b", "cc=max-age=60&vary=*"), ("c", "status=201&modified=1"), ("d", "cc=max-age=60&size=1001")] {
            let url = server.url("/cached?key=\(key)&\(query)")
            let first = try await session.get(url)
            let second = try await session.get(url)
            #expect(first.source == .network && second.source == .network, "\(query)")
            #expect(server.tally.count(key) == 2, "\(query)")
        }
        #expect(try await session.get(server.url("/cached?key=d&cc=max-age=60&size=1001")).body.count == 1001)
        let created = server.url("/cached?key=e&status=201&cc=max-age=60")
        _ = try await session.get(created)
        #expect(try await session.get(created).source == .cache, "a stated freshness makes any final status storable")
        let conditional = server.url("/cached?key=g&cc=max-age=60&etag=1")
        _ = try await session.get(conditional)
        var ownCondition = request(conditional, headers: [("If-None-Match", #""v1""#)])
        ownCondition.validation = ResponseValidation.none
        let own = try await session.send(ownCondition)
        #expect(own.statusCode == 304 && own.source == .network, "the caller's own condition reaches the server, and its 304 the caller")
        #expect(cache.count == 2)
        await session.shutdown()
        await server.stop()
    }

    @Test("Vary: a response answers only requests with the same values of the fields it names")
    func vary() async throws {
        let server = try await HTTPTestServer(chain: nil)
        let session = session(ResponseCache())
        let url = server.url("/cached?key=v&cc=max-age=60&vary=X-Region")
        #expect(try await session.get(url, headers: [("X-Region", "north")]).text == "body 1 of v for north")
        #expect(try await session.get(url, headers: [("X-Region", "south")]).text == "body 2 of v for south")
        let again = try await session.get(url, headers: [("X-Region", " north ")])
        #expect(again.source == .cache && again.text == "body 1 of v for north")
        #expect(try await session.get(url).text == "body 3 of v for ")
        await #expect(throws: SecureSessionError.self, "a request that cannot be written is refused, not answered from the cache") {
            try await session.get(url, headers: [("X-Region", "north"), ("X-Injected", "a\r\nHost: elsewhere")])
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("no response crosses a trust boundary: other credentials, another trust evaluator (pins) sharing the cache, a request's own challenge handler")
    func partitions() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let cache = ResponseCache()
        let plain = session(cache)
        let pinned = session(cache, SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.intermediate.der]))
        let url = server.url("/cached?key=me&cc=private,max-age=60")
        let alice = try await plain.get(url, headers: [("Authorization", "Bearer alice")])
        let bob = try await plain.get(url, headers: [("Authorization", "Bearer bob")])
        #expect(alice.text == "body 1 of me" && bob.text == "body 2 of me", "bob never gets alice's answer")
        #expect(try await plain.get(url, headers: [("Authorization", "Bearer alice")]).text == "body 1 of me")
        #expect(try await plain.get(url).source == .network, "nor does a request without credentials")
        // An API key of its own name is a credential too, and a Host the caller wrote names
        // another virtual host: tenants never get each other's answers.
        let keyed = server.url("/cached?key=tenants&cc=private,max-age=60")
        let tenantA = try await plain.get(keyed, headers: [("X-Api-Key", "tenant-a")])
        let tenantB = try await plain.get(keyed, headers: [("X-Api-Key", "tenant-b")])
        #expect(tenantA.text == "body 1 of tenants" && tenantB.source == .network && tenantB.text == "body 2 of tenants")
        #expect(try await plain.get(keyed, headers: [("X-Api-Key", "tenant-a")]).source == .cache)
        // So is a field naming the tenant or the user the request is made for; the software
        // making it (User-Agent) is not.
        let named = server.url("/cached?key=named&cc=private,max-age=60")
        for field in ["X-Tenant", "X-User-Id"] {
            _ = try await plain.get(named, headers: [(field, "a")])
            #expect(try await plain.get(named, headers: [(field, "b")]).source == .network, "\(field)")
            #expect(try await plain.get(named, headers: [(field, "a")]).source == .cache, "\(field)")
        }
        _ = try await plain.get(named, headers: [("User-Agent", "one/1")])
        #expect(try await plain.get(named, headers: [("User-Agent", "other/2")]).source == .cache)
        let hostA = try await plain.get(keyed, headers: [("Host", "a.example.test")])
        let hostB = try await plain.get(keyed, headers: [("Host", "b.example.test")])
        #expect(hostA.source == .network && hostB.source == .network && hostB.text != hostA.text)
        let viaPins = try await pinned.get(url, headers: [("Authorization", "Bearer alice")])
        #expect(viaPins.source == .network && viaPins.text == "body 4 of me", "what one policy trusted is not served under another")
        #expect(try await pinned.get(url, headers: [("Authorization", "Bearer alice")]).source == .cache)

        var ownHandler = SecureRequest(url: url, headers: [("Authorization", "Bearer alice")])
        ownHandler.challengeHandler = { _ in .performDefaultHandling }
        #expect(try await plain.send(ownHandler).source == .network)
        #expect(try await plain.send(ownHandler).source == .network, "its connection's trust is that request's alone")
        await plain.shutdown()
        await pinned.shutdown()
        await server.stop()
    }

    @Test("credentials the session answers a challenge with count as the request's: Basic meets the 401 again, then the cache answers; Digest's answers differ, so the server is asked each time")
    func challenges() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let store = CredentialStore()
        let alice = Credential.user("alice", password: "wonderland")
        store.set(alice, for: ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: true, realm: "lab", method: .httpBasic))
        store.set(alice, for: ProtectionSpace(host: "127.0.0.1", port: server.port, isSecure: true, realm: nil, method: .httpDigest))
        let session = lab.session { $0.responses.cache = ResponseCache(); $0.features.credentialStore = store }
        let basic = server.url("/basic?cc=max-age=60")
        #expect(try await session.get(basic).text == "welcome alice")
        #expect(server.tally.count("/basic") == 2)
        let again = try await session.get(basic)
        #expect(again.source == .cache && again.text == "welcome alice")
        #expect(server.tally.count("/basic") == 3, "only the 401 came from the server")
        let digest = server.url("/digest?algorithm=SHA-256&cc=max-age=60")
        #expect(try await session.get(digest).source == .network)
        #expect(try await session.get(digest).source == .network)
        await session.shutdown()
        await server.stop()
    }

    @Test("a request that may change a resource (POST, PUT, DELETE) forgets it, and what its Location and Content-Location name on the same origin")
    func invalidation() async throws {
        let server = try await HTTPTestServer(chain: nil)
        let session = session(ResponseCache())
        let url = server.url("/cached?key=i&cc=max-age=60")
        _ = try await session.get(url)
        #expect(try await session.get(url).source == .cache)
        _ = try await session.post(url, body: Data("change".utf8))
        let after = try await session.get(url)
        #expect(after.source == .network && after.text == "body 3 of i")

        #expect(try await session.get(url).source == .cache)
        _ = try await session.send(SecureRequest(.put, url: server.url("/cached?key=other&location=/cached?key=i%26cc=max-age=60"), body: Data()))
        #expect(try await session.get(url).source == .network, "named by the Location of a PUT elsewhere")
        #expect(try await session.get(url).source == .cache)
        var failing = SecureRequest(.delete, url: server.url("/cached?key=other&status=404&location=/cached?key=i%26cc=max-age=60"))
        failing.validation = ResponseValidation.none
        _ = try await session.send(failing)
        #expect(try await session.get(url).source == .cache, "a failed request changes nothing")
        await session.shutdown()
        await server.stop()
    }

    @Test("a kept redirect is followed without asking its server again")
    func redirect() async throws {
        let server = try await HTTPTestServer(chain: nil)
        let session = session(ResponseCache())
        let url = server.url("/cached?key=r&status=301&cc=max-age=60&location=/hello")
        let first = try await session.get(url)
        #expect(first.text == "hello" && first.redirects.count == 1)
        let second = try await session.get(url)
        #expect(second.text == "hello" && second.redirects.map(\.path) == ["/hello"])
        #expect(server.tally.count("r") == 1)
        var unfollowed = SecureRequest(url: url)
        unfollowed.followsRedirects = false
        unfollowed.validation = ResponseValidation.none
        let kept = try await session.send(unfollowed)
        #expect(kept.statusCode == 301 && kept.source == .cache && kept.text == "body 1 of r", "the redirect's own body was kept")
        await session.shutdown()
        await server.stop()
    }
}

/// The cache against nginx (Debian's package), an independent server with its own `ETag`s,
/// `Last-Modified` dates, `304`s and `expires`.
@Suite("Response cache with nginx")
struct ResponseCacheNginxTests {
    let lab = try! TrustLab()

    @Test("nginx's files: kept for a tenth of their age since modified, revalidated by nginx's 304 when that has passed, a changed file loaded anew, `expires 1h` answered from the cache")
    func nginx() async throws {
        let server = try NginxServer(chain: lab.loopbackChain(), requestsPerConnection: 100)
        defer { server.stop() }
        let session = lab.session { $0.responses.cache = ResponseCache() }
        try server.serve("old.json", contents: #"{"rate":1.08}"#, modified: Date() - 1_000)
        // Dated a minute ahead: no heuristic freshness at all, whatever the seconds of nginx's
        // `Date` and `Last-Modified` (a file modified just now would be fresh for a tenth of the
        // fraction of a second between them).
        try server.serve("new.json", contents: #"{"rate":1.09}"#, modified: Date() + 60)

        let old = server.url("/static/old.json")
        #expect(try await session.get(old).source == .network)
        let heuristic = try await session.get(old)
        #expect(heuristic.source == .cache, "fresh for about 100 s: a tenth of its 1,000 s since modified")
        #expect(heuristic.text == #"{"rate":1.08}"#)

        let new = server.url("/static/new.json")
        #expect(try await session.get(new).source == .network)
        let confirmed = try await session.get(new)
        #expect(confirmed.source == .revalidated, "no freshness, so nginx is asked")
        #expect(confirmed.text == #"{"rate":1.09}"#)
        #expect(confirmed.httpVersion == "HTTP/2")

        try server.serve("new.json", contents: #"{"rate":1.1050}"#, modified: Date() + 120)
        let changed = try await session.get(new)
        #expect(changed.source == .network && changed.text == #"{"rate":1.1050}"#, "a new ETag: nginx sends the file")

        let expiring = server.url("/expiring/new.json")
        _ = try await session.get(expiring)
        let kept = try await session.get(expiring)
        #expect(kept.source == .cache && kept.header("Cache-Control") == "max-age=3600")

        let answered = try server.staticResponses()
        #expect(answered.map(\.path) == ["/static/old.json", "/static/new.json", "/static/new.json", "/static/new.json", "/expiring/new.json"])
        #expect(answered.map(\.status) == [200, 200, 304, 200, 200])
        await session.shutdown()
    }
}
