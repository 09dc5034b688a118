import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

@Suite("HTTP proxies")
struct ProxyTests {
    let lab = try! TrustLab()

    func session(through proxy: HTTPProxy, _ evaluator: any ServerTrustEvaluating = SecurityPolicy.default) -> SecureSession {
        lab.session(evaluator) { $0.connections.proxies = HTTPProxySettings(https: proxy, http: proxy) }
    }

    /// Expects a GET of `url` on `session` to fail at the proxy `proxy` (`host:port`): the
    /// request went through it.
    func expectThroughProxy(_ proxy: String, _ url: URL, on session: SecureSession, sourceLocation: SourceLocation = #_sourceLocation) async {
        await #expect("\(url)", sourceLocation: sourceLocation) {
            _ = try await session.get(url)
        } throws: { error in
            guard case .connectionFailed(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("through the proxy \(proxy)")
        }
    }

    @Test("https goes through tinyproxy's CONNECT tunnel: the pins and the trust decision stay end to end, HTTP/2 runs inside")
    func tunnel() async throws {
        let proxy = try TinyProxy()
        defer { proxy.stop() }
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let impostor = try await HTTPTestServer(chain: lab.loopbackChain(issuedBy: lab.proxyRoot))
        let session = session(through: HTTPProxy(host: "127.0.0.1", port: proxy.port), SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der]))
        let response = try await session.get(server.url("/hello"))
        #expect(response.text == "hello")
        #expect(response.httpVersion == "HTTP/2")
        #expect(response.trustDecision?.isTrusted == true)
        await #expect {
            _ = try await session.get(impostor.url("/hello"))
        } throws: { error in
            guard case .trustRejected(let decision)? = error.sessionFailureReason else { return false }
            return decision.pinMismatch != nil
        }
        proxy.stop()
        await session.shutdown()
        // With the proxy gone, the request fails and names it: it did go through the proxy.
        let stranded = self.session(through: HTTPProxy(host: "127.0.0.1", port: proxy.port))
        await expectThroughProxy("127.0.0.1:\(proxy.port)", server.url("/hello"), on: stranded)
        await stranded.shutdown()
        await server.stop()
        await impostor.stop()
    }

    @Test("http goes to the proxy in absolute form, which forwards it")
    func cleartext() async throws {
        let proxy = try TinyProxy()
        defer { proxy.stop() }
        let server = try await HTTPTestServer(chain: nil)
        let session = session(through: HTTPProxy(host: "127.0.0.1", port: proxy.port))
        let headers = try await session.get(server.url("/headers")).decode([String: String].self)
        #expect(headers["via"]?.contains("tinyproxy") == true, "\(headers)")
        #expect(try await session.get(server.url("/target/a%20b?q=1")).text == "/target/a%20b?q=1")
        await session.shutdown()
        await server.stop()
    }

    @Test("Secure cookies: http to localhost is a secure context only over a connection that really goes to loopback, not through a proxy nor to an address an override names")
    func secureCookiesNeedLoopback() async throws {
        let proxy = try TinyProxy()
        defer { proxy.stop() }
        let server = try await HTTPTestServer(chain: nil)
        let jar = CookieJar()
        let direct = lab.session { $0.features.cookieJar = jar }
        let url = { (path: String) in server.url(path, host: "localhost") }
        func set(_ cookie: String, with session: SecureSession) async throws {
            _ = try await session.send(SecureRequest(url: url("/set-cookie"), headers: [("X-Set-Cookie", cookie)]))
        }
        try await set("direct=1; Secure", with: direct)
        #expect(jar.cookies.map(\.name) == ["direct"], "straight to loopback: a secure context")
        #expect(try await direct.get(url("/headers")).decode([String: String].self)["cookie"] == "direct=1")

        var settings = HTTPProxySettings(http: HTTPProxy(host: "127.0.0.1", port: proxy.port))
        settings.bypassesLoopback = false
        let proxied = lab.session { $0.features.cookieJar = jar; $0.connections.proxies = settings }
        try await set("proxied=1; Secure", with: proxied)
        #expect(!jar.cookies.map(\.name).contains("proxied"), "through a proxy: no Secure cookie is set")
        let headers = try await proxied.get(url("/headers")).decode([String: String].self)
        #expect(headers["via"]?.contains("tinyproxy") == true)
        #expect(headers["cookie"] == nil, "nor sent: \(headers)")
        // An address override to a loopback address still reaches loopback.
        let overridden = lab.session { $0.features.cookieJar = jar; $0.connections.addressOverrides = [AddressOverride(host: "localhost", port: server.port, address: "127.0.0.1")] }
        #expect(try await overridden.get(url("/headers")).decode([String: String].self)["cookie"] == "direct=1")
        for session in [direct, proxied, overridden] { await session.shutdown() }
        await server.stop()
    }

    @Test("a proxy that wants credentials refuses a tunnel without them (407) and opens it with them")
    func credentials() async throws {
        let proxy = try TinyProxy(user: "bob", password: "s3cret")
        defer { proxy.stop() }
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let anonymous = session(through: HTTPProxy(host: "127.0.0.1", port: proxy.port))
        await #expect {
            _ = try await anonymous.get(server.url("/hello"))
        } throws: { error in
            guard case .proxyFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("407") && detail.contains("refused the tunnel to 127.0.0.1:\(server.port)")
        }
        let known = session(through: try HTTPProxy(url: proxy.url(user: "bob", password: "s3cret")))
        #expect(try await known.get(server.url("/hello")).text == "hello")
        let cleartext = try await HTTPTestServer(chain: nil)
        #expect(try await known.get(cleartext.url("/hello")).text == "hello")
        await anonymous.shutdown()
        await known.shutdown()
        await server.stop()
        await cleartext.stop()
    }

    @Test("an HTTPS proxy (stunnel4 in front of tinyproxy): TLS with the proxy judged by its own policy, the server's TLS end to end inside it, credentials and http requests inside it too")
    func httpsProxy() async throws {
        let proxy = try StunnelProxy(chain: lab.loopbackChain(), user: "bob", password: "s3cret")
        defer { proxy.stop() }
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        defer { Task { await server.stop() } }
        let cleartext = try await HTTPTestServer(chain: nil)
        defer { Task { await cleartext.stop() } }
        let through = try HTTPProxy(url: proxy.url(user: "bob", password: "s3cret"))
        let session = session(through: through, SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der]))
        defer { Task { await session.shutdown() } }
        let response = try await session.get(server.url("/hello"))
        #expect(response.text == "hello")
        #expect(response.httpVersion == "HTTP/2")
        #expect(response.trustDecision?.isTrusted == true)
        #expect(try await session.get(cleartext.url("/hello")).text == "hello")

        // Without credentials the proxy's refusal comes through its TLS.
        let anonymous = self.session(through: try HTTPProxy(url: proxy.url()))
        defer { Task { await anonymous.shutdown() } }
        await #expect {
            _ = try await anonymous.get(server.url("/hello"))
        } throws: { error in
            guard case .proxyFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("407")
        }

        // The proxy pinned by its root's key: trusted; by another key: refused before any tunnel.
        let pinned = self.session(through: try HTTPProxy(url: proxy.url(user: "bob", password: "s3cret"), trustEvaluator: PublicKeysTrustEvaluator(certificates: [lab.root.der])))
        defer { Task { await pinned.shutdown() } }
        #expect(try await pinned.get(server.url("/hello")).text == "hello")
        let mispinned = self.session(through: try HTTPProxy(url: proxy.url(user: "bob", password: "s3cret"), trustEvaluator: PublicKeysTrustEvaluator(certificates: [lab.proxyRoot.der])))
        defer { Task { await mispinned.shutdown() } }
        let before = server.connections.total
        await #expect {
            _ = try await mispinned.get(server.url("/hello"))
        } throws: { error in
            guard case .proxyFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("the certificate of the proxy https://bob@127.0.0.1:\(proxy.port) was rejected")
        }
        #expect(server.connections.total == before)

        // A policy for a proxy without TLS is refused, not ignored.
        let unjudgeable = self.session(through: HTTPProxy(host: "127.0.0.1", port: 1, trustEvaluator: PublicKeysTrustEvaluator(certificates: [lab.root.der])))
        defer { Task { await unjudgeable.shutdown() } }
        await #expect {
            _ = try await unjudgeable.get(server.url("/hello"))
        } throws: { error in
            guard case .invalidURL(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("no TLS to judge it by")
        }
    }

    @Test("an HTTPS proxy whose certificate the system store does not trust, or that does not speak TLS, fails as a proxy failure, for https and http requests alike")
    func untrustedHTTPSProxy() async throws {
        let rogue = try StunnelProxy(chain: lab.loopbackChain(issuedBy: lab.rogueRoot))
        defer { rogue.stop() }
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let cleartext = try await HTTPTestServer(chain: nil)
        defer { Task { await cleartext.stop() } }
        let session = session(through: try HTTPProxy(url: rogue.url()))
        defer { Task { await session.shutdown() } }
        for url in [server.url("/hello"), cleartext.url("/hello")] {
            await #expect("\(url)") {
                _ = try await session.get(url)
            } throws: { error in
                guard case .proxyFailure(let detail)? = error.sessionFailureReason else { return false }
                return detail.contains("the certificate of the proxy https://127.0.0.1:\(rogue.port) was rejected")
            }
        }
        #expect(server.connections.total == 0)
        #expect(cleartext.connections.total == 0)

        // A plain HTTP server taken for an HTTPS proxy answers the TLS hello with an HTTP error.
        let notTLS = self.session(through: HTTPProxy(host: "127.0.0.1", port: cleartext.port, kind: .https))
        defer { Task { await notTLS.shutdown() } }
        await #expect {
            _ = try await notTLS.get(server.url("/hello"))
        } throws: { error in
            guard case .proxyFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("TLS with the proxy https://127.0.0.1:\(cleartext.port) failed") && detail.contains("WRONG_VERSION_NUMBER")
        }
    }

    @Test("a proxy that sends bytes after its 200 to CONNECT, before the client's TLS hello, is refused in words (they would be taken for the server's)")
    func bytesAfterConnectAnswer() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        // Bytes that read as a response of their own, bytes that read as nothing (a TLS record).
        for extra in [Array("HTTP/1.1 200 OK\r\n\r\ninjected".utf8), [0x16, 0x03, 0x03, 0x00, 0x02, 0x02, 0x00]] {
            let talkative = try await RawResponseServer(response: Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8) + extra)
            let port = try #require(talkative.channel.localAddress?.port)
            let session = session(through: HTTPProxy(host: "127.0.0.1", port: port))
            await #expect {
                _ = try await session.get(server.url("/hello"))
            } throws: { error in
                guard case .proxyFailure(let detail)? = error.sessionFailureReason else { return false }
                return detail == "the proxy 127.0.0.1:\(port) sent bytes after its answer to CONNECT, before anything went through the tunnel to 127.0.0.1:\(server.port) (they would be taken for the server's): refused"
            }
            await session.shutdown()
            await talkative.stop()
        }
        #expect(server.connections.total == 0)
    }

    @Test("a SOCKS5 proxy that sends bytes after its reply, with or without a user, is refused in words")
    func bytesAfterSOCKSReply() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/talkative-socks/server.py").path
        for credentials in [[], ["alice", "secret"]] {
            let proxy = try ServerProcess("python3") { port in [script, "\(port)"] + credentials }
            defer { proxy.stop() }
            let user = credentials.isEmpty ? "" : "alice:secret@"
            let settings = try HTTPProxy(url: "socks5://\(user)127.0.0.1:\(proxy.port)")
            let session = session(through: settings)
            for url in [server.url("/hello"), URL(string: "http://127.0.0.1:\(server.port)/hello")!] {
                await #expect("\(credentials) \(url)") {
                    _ = try await session.get(url)
                } throws: { error in
                    guard case .proxyFailure(let detail)? = error.sessionFailureReason else { return false }
                    return detail == "the SOCKS proxy \(settings) sent 19 bytes after its reply, before anything went through the tunnel to 127.0.0.1:\(server.port) (they would be taken for the server's): refused"
                }
            }
            await session.shutdown()
        }
        #expect(server.connections.total == 0)
    }

    @Test("proxy URLs: credentials, default port, refusals; the password is never shown")
    func proxyURLs() throws {
        let proxy = try HTTPProxy(url: "http://alice:p%40ss@proxy.example.test:3128")
        #expect(proxy == HTTPProxy(host: "proxy.example.test", port: 3128, user: "alice", password: "p@ss"))
        #expect(proxy.description == "alice@proxy.example.test:3128")
        #expect(try HTTPProxy(url: "proxy.example.test") == HTTPProxy(host: "proxy.example.test", port: 1080))
        #expect(try HTTPProxy(url: "http://dave:50%25off@proxy:8080").password == "50%off")
        #expect(try HTTPProxy(url: "[2001:db8::1]:8080").description == "[2001:db8::1]:8080")
        #expect(try HTTPProxy(url: "[2001:db8::1]:8080").host == "2001:db8::1")
        // An internationalized name in the ASCII form DNS, SNI and certificates use.
        #expect(try HTTPProxy(url: "https://bücher.example:8443").host == "xn--bcher-kva.example")
        #expect(try HTTPProxy(url: "socks5h://proxy.example.test") == HTTPProxy(host: "proxy.example.test", port: 1080, kind: .socks5h))
        #expect(try HTTPProxy(url: "SOCKS5://proxy:9050").description == "socks5://proxy:9050")
        #expect(try HTTPProxy(url: "https://proxy.example.test") == HTTPProxy(host: "proxy.example.test", port: 443, kind: .https))
        #expect(try HTTPProxy(url: "HTTPS://erin:pw@proxy:8443").description == "https://erin@proxy:8443")
        #expect(try HTTPProxy(url: "socks5h://frank:s%3Acret@proxy") == HTTPProxy(host: "proxy", port: 1080, user: "frank", password: "s:cret", kind: .socks5h))
        // A colon in the user name: Basic's `user:password` could not carry it; SOCKS5 can.
        #expect(try HTTPProxy(url: "socks5://a%3Ab:pw@proxy").user == "a:b")
        for bad in ["socks4://proxy:1080", "http://:80", "http://proxy:99999", "", "http://a%3Ab:pw@proxy", "https://a%3A@proxy"] {
            #expect(throws: SecureSessionError.self, "\(bad)") { try HTTPProxy(url: bad) }
        }
        let refused = try #require(throws: SecureSessionError.self) { try HTTPProxy(url: "socks4://carol:hunter2@proxy") }
        #expect(!"\(refused)".contains("hunter2"))
    }

    @Test("SOCKS5 through microsocks: https end to end (pins, HTTP/2 inside), http in origin form, names resolved here (socks5) or by the proxy (socks5h), refusals in words")
    func socks() async throws {
        let proxy = try MicroSocks()
        defer { proxy.stop() }
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let impostor = try await HTTPTestServer(chain: lab.loopbackChain(issuedBy: lab.proxyRoot))
        let cleartext = try await HTTPTestServer(chain: nil)
        for kind in [HTTPProxy.Kind.socks5, .socks5h] {
            let session = session(through: HTTPProxy(host: "127.0.0.1", port: proxy.port, kind: kind), SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der]))
            let response = try await session.get(server.url("/hello"))
            #expect(response.text == "hello" && response.httpVersion == "HTTP/2" && response.trustDecision?.isTrusted == true)
            await #expect {
                _ = try await session.get(impostor.url("/hello"))
            } throws: { error in
                guard case .trustRejected(let decision)? = error.sessionFailureReason else { return false }
                return decision.pinMismatch != nil
            }
            // Cleartext goes through the tunnel in origin form, to a name the proxy or this side resolves.
            #expect(try await session.get(cleartext.url("/target/a%20b?q=1", host: "localhost")).text == "/target/a%20b?q=1")
            // A server that refuses: the proxy's reply in words.
            await #expect {
                _ = try await session.get(URL(string: "http://127.0.0.1:1/")!)
            } throws: { error in
                guard case .proxyFailure(let detail)? = error.sessionFailureReason else { return false }
                return detail == "the SOCKS proxy \(kind.rawValue)://127.0.0.1:\(proxy.port) did not open the tunnel to 127.0.0.1:1: connection refused by the server"
            }
            await session.shutdown()
        }
        // A name longer than a SOCKS5 request can carry (or DNS allows) is refused before
        // anything is sent.
        let long = String(repeating: "a", count: 63) + "." + String(repeating: "b", count: 63) + "." + String(repeating: "c", count: 63) + "." + String(repeating: "d", count: 63) + ".example"
        let session = session(through: HTTPProxy(host: "127.0.0.1", port: proxy.port, kind: .socks5h))
        await #expect {
            _ = try await session.get(URL(string: "http://\(long)/")!)
        } throws: { error in
            guard case .invalidURL(let detail)? = error.sessionFailureReason else { return false }
            return detail.hasSuffix("its host is longer than the 253 characters of a host name")
        }
        await session.shutdown()
        proxy.stop()
        // With the proxy gone, the request fails and names it.
        let stranded = self.session(through: HTTPProxy(host: "127.0.0.1", port: proxy.port, kind: .socks5h))
        await expectThroughProxy("socks5h://127.0.0.1:\(proxy.port)", server.url("/hello"), on: stranded)
        await stranded.shutdown()
        await server.stop()
        await impostor.stop()
        await cleartext.stop()
    }

    @Test("SOCKS5 with a user name and password (RFC 1929) through microsocks -u/-P: https end to end with pins; a wrong password, none, or one too long is refused in words, never shown")
    func socksWithPassword() async throws {
        let proxy = try MicroSocks(user: "alice", password: "s3cret pass")
        defer { proxy.stop() }
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let cleartext = try await HTTPTestServer(chain: nil)
        for kind in [HTTPProxy.Kind.socks5, .socks5h] {
            let through = HTTPProxy(host: "127.0.0.1", port: proxy.port, user: "alice", password: "s3cret pass", kind: kind)
            let session = session(through: through, SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der]))
            let response = try await session.get(server.url("/hello"))
            #expect(response.text == "hello" && response.httpVersion == "HTTP/2" && response.trustDecision?.isTrusted == true)
            #expect(try await session.get(cleartext.url("/target/x", host: "localhost")).text == "/target/x")
            await session.shutdown()
        }
        let cases: [(HTTPProxy, String)] = [
            (HTTPProxy(host: "127.0.0.1", port: proxy.port, user: "alice", password: "wrong", kind: .socks5h), "it refused the user name or password of alice"),
            (HTTPProxy(host: "127.0.0.1", port: proxy.port, kind: .socks5h), "it wants a user name and password (socks5://user:password@host)"),
        ]
        for (through, reason) in cases {
            let session = session(through: through)
            await #expect {
                _ = try await session.get(server.url("/hello"))
            } throws: { error in
                guard case .proxyFailure(let detail)? = error.sessionFailureReason else { return false }
                return detail == "the SOCKS proxy \(through) did not open the tunnel to 127.0.0.1:\(server.port): \(reason)" && !detail.contains("wrong")
            }
            await session.shutdown()
        }
        let tooLong = session(through: HTTPProxy(host: "127.0.0.1", port: proxy.port, user: String(repeating: "u", count: 256), password: "p", kind: .socks5))
        await #expect {
            _ = try await tooLong.get(server.url("/hello"))
        } throws: { error in
            "\(error)".contains("a user name of 1 to 255 bytes and a password of at most 255 are all SOCKS5 can send")
        }
        await tooLong.shutdown()
        await server.stop()
        await cleartext.stop()
    }

    @Test("the environment: https_proxy before HTTPS_PROXY, http_proxy, ALL_PROXY as the fallback, NO_PROXY and loopback go direct")
    func environment() async throws {
        let settings = try HTTPProxySettings.fromEnvironment([
            "https_proxy": "http://lower:8080", "HTTPS_PROXY": "http://upper:8080", "HTTP_PROXY": "http://ignored:1",
            "ALL_PROXY": "http://all:3128", "NO_PROXY": "internal.example, .corp.example , 192.0.2.7",
        ])
        #expect(settings.https == HTTPProxy(host: "lower", port: 8080))
        #expect(settings.http == HTTPProxy(host: "all", port: 3128))
        #expect(settings.bypass == ["internal.example", ".corp.example", "192.0.2.7"])
        #expect(settings.bypassesLoopback)
        #expect(try HTTPProxySettings.fromEnvironment([:]) == .none.with(loopbackBypass: true))
        #expect(try HTTPProxySettings.fromEnvironment(["HTTPS_PROXY": "https://tls-proxy"]).https == HTTPProxy(host: "tls-proxy", port: 443, kind: .https))
        #expect(throws: SecureSessionError.self) { try HTTPProxySettings.fromEnvironment(["HTTPS_PROXY": "socks4://old-proxy"]) }

        // Which requests go direct, shown by a proxy that does not exist: a direct request
        // reaches the server, a proxied one fails naming the proxy.
        let server = try await HTTPTestServer(chain: nil)
        var proxies = settings
        proxies.http = HTTPProxy(host: "127.0.0.1", port: 1)
        let session = lab.session { configuration in
            configuration.connections.proxies = proxies
            configuration.connections.addressOverrides = ["internal.example", "api.corp.example", "other.example", "192.0.2.7"].map {
                AddressOverride(host: $0, port: server.port, address: "127.0.0.1")
            }
        }
        for direct in ["127.0.0.1", "localhost", "internal.example", "api.corp.example", "other.example"] {
            #expect(try await session.get(URL(string: "http://\(direct):\(server.port)/hello")!).text == "hello", "\(direct)")
        }
        await expectThroughProxy("127.0.0.1:1", URL(string: "http://proxied.example:\(server.port)/hello")!, on: session)
        var strict = proxies
        strict.bypassesLoopback = false
        let everyHost = lab.session { $0.connections.proxies = strict }
        await expectThroughProxy("127.0.0.1:1", URL(string: "http://127.0.0.1:\(server.port)/hello")!, on: everyHost)
        await session.shutdown()
        await everyHost.shutdown()
        await server.stop()
    }

    @Test("NO_PROXY address ranges (10.0.0.0/8, fd00::/8) send addresses in them direct, named in the URL or reached through an address override; an address entry matches itself only")
    func addressRanges() async throws {
        let server = try await HTTPTestServer(chain: nil)
        var settings = try HTTPProxySettings.fromEnvironment(["http_proxy": "http://127.0.0.1:1", "no_proxy": "10.0.0.0/8, fd00::/8, 192.0.2.7"])
        settings.bypassesLoopback = false
        let hosts = ["10.1.2.3", "11.1.2.3", "192.0.2.7", "92.0.2.7", "db.internal", "[fd00::1]", "[fe00::1]"]
        let session = lab.session { configuration in
            configuration.connections.proxies = settings
            configuration.connections.addressOverrides = hosts.map {
                AddressOverride(host: $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: server.port, address: "127.0.0.1")
            }
        }
        for direct in ["10.1.2.3", "192.0.2.7", "[fd00::1]"] {
            #expect(try await session.get(URL(string: "http://\(direct):\(server.port)/hello")!).text == "hello", "\(direct)")
        }
        for proxied in ["11.1.2.3", "92.0.2.7", "[fe00::1]", "db.internal"] {
            await expectThroughProxy("127.0.0.1:1", URL(string: "http://\(proxied):\(server.port)/hello")!, on: session)
        }
        // A name whose override address is in a range goes direct too.
        var loopbackRange = settings
        loopbackRange.bypass = ["127.0.0.0/8"]
        let overridden = lab.session { configuration in
            configuration.connections.proxies = loopbackRange
            // Written with capitals and a trailing dot: the override still applies to db.internal.
            configuration.connections.addressOverrides = [AddressOverride(host: "DB.Internal.", port: server.port, address: "127.0.0.1")]
        }
        #expect(try await overridden.get(URL(string: "http://db.internal:\(server.port)/hello")!).text == "hello")
        await overridden.shutdown()
        await session.shutdown()
        await server.stop()
    }
}

extension HTTPProxySettings {
    fileprivate func with(loopbackBypass: Bool) -> HTTPProxySettings {
        var copy = self
        copy.bypassesLoopback = loopbackBypass
        return copy
    }
}
