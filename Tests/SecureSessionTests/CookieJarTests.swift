import Foundation
import Logging
import NIOConcurrencyHelpers
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

/// A jar at a fixed time that tests move forward, with a small public suffix list.
private struct FixedJar {
    let now = NIOLockedValueBox(Date(timeIntervalSince1970: 1_900_000_000))
    let jar: CookieJar

    init() {
        let now = now
        jar = CookieJar(publicSuffixes: PublicSuffixList(text: "com\nuk\nco.uk\n"), clock: { now.withLockedValue { $0 } })
    }

    func set(_ fields: String..., from url: String) {
        jar.store(setCookieFields: fields, from: URL(string: url)!)
    }

    func field(_ url: String) -> String? { jar.cookieField(for: URL(string: url)!) }

    func advance(_ seconds: TimeInterval) { now.withLockedValue { $0 += seconds } }
}

@Suite("Cookies: RFC 6265 storage and matching")
struct CookieJarTests {
    @Test("a cookie goes back to the host that set it, under its path; attributes are read case-insensitively and trimmed")
    func hostOnlyAndPath() {
        let cookies = FixedJar()
        cookies.set(" sid = abc ; PATH=/app ; HttpOnly", "theme=dark", from: "https://api.example.com/app/login")
        let sid = cookies.jar.cookies.first { $0.name == "sid" }
        #expect(sid?.value == "abc")
        #expect(sid?.isHostOnly == true && sid?.isHTTPOnly == true && sid?.path == "/app")
        #expect(cookies.jar.cookies.first { $0.name == "theme" }?.path == "/app", "the default path is the request's directory")
        #expect(cookies.field("https://api.example.com/app/me") == "sid=abc; theme=dark")
        #expect(cookies.field("https://api.example.com/app") == "sid=abc; theme=dark")
        #expect(cookies.field("https://api.example.com/application") == nil, "a path matches at a / boundary only")
        #expect(cookies.field("https://api.example.com/") == nil)
        #expect(cookies.field("https://www.api.example.com/app") == nil, "host-only: not to subdomains")
        #expect(cookies.field("https://example.com/app") == nil)
        #expect(cookies.field("https://API.Example.COM./app/x") == "sid=abc; theme=dark", "hosts compare case-insensitively, without a trailing dot")
        #expect(cookies.field("https://api.example.com:8443/app") == "sid=abc; theme=dark", "ports are not told apart")
        // Paths are the request's as sent, percent-encoded (RFC 6265's request-uri path, as curl
        // and browsers match them): `/app%2Fme` is not below `/app`.
        #expect(cookies.field("https://api.example.com/app%2Fme") == nil)
        cookies.set("deep=1", from: "https://api.example.com/a%2Fb/page")
        #expect(cookies.jar.cookies.first { $0.name == "deep" }?.path == "/a%2Fb", "the default path is the encoded directory")
        #expect(cookies.field("https://api.example.com/a/b/page") == nil)
        #expect(cookies.field("https://api.example.com/a%2Fb/other") == "deep=1")
    }

    @Test("names, values and attributes lose spaces and tabs only (RFC 6265's WSP): a no-break space or U+200B makes another cookie, never replaces one")
    func onlySpacesAndTabsTrimmed() {
        let cookies = FixedJar()
        cookies.set("sid=abc", from: "https://api.example.com/")
        cookies.set("\u{00A0}sid=evil", "sid\u{200B}=evil", "\tsid\t=\tabc\t", from: "https://api.example.com/")
        #expect(cookies.jar.cookies.filter { $0.name == "sid" }.map(\.value) == ["abc"])
        #expect(Set(cookies.jar.cookies.map(\.name)) == ["sid", "\u{00A0}sid", "sid\u{200B}"])
        cookies.set("lang=en; Domain=\u{200B}example.com", from: "https://api.example.com/")
        #expect(!cookies.jar.cookies.contains { $0.name == "lang" }, "a Domain with U+200B does not cover the host: refused")
    }

    @Test("Domain covers the domain and its subdomains; another domain or a public suffix is refused")
    func domains() {
        let cookies = FixedJar()
        cookies.set("a=1; Domain=.Example.com", "b=2; Domain=other.com", "c=3; Domain=com", "d=4; Domain=ample.com", from: "https://api.example.com/")
        #expect(cookies.jar.cookies.map(\.name) == ["a"])
        #expect(cookies.jar.cookies.first?.isHostOnly == false && cookies.jar.cookies.first?.domain == "example.com")
        #expect(cookies.field("https://example.com/") == "a=1")
        #expect(cookies.field("https://deep.www.example.com/") == "a=1")
        #expect(cookies.field("https://badexample.com/") == nil)
        // The host's own name as Domain covers its subdomains too (RFC 6265 §5.3 step 6).
        cookies.set("own=1; Domain=shop.example.com", from: "https://shop.example.com/")
        #expect(cookies.field("https://www.shop.example.com/") == "a=1; own=1")
        // A public suffix that is the host itself makes a host-only cookie.
        cookies.set("e=5; Domain=co.uk", from: "https://co.uk/")
        cookies.set("f=6; Domain=co.uk", from: "https://shop.co.uk/")
        #expect(cookies.field("https://co.uk/") == "e=5")
        #expect(cookies.field("https://shop.co.uk/") == nil)
        // An address only ever gets host-only cookies.
        cookies.set("g=7; Domain=0.0.1", "h=8; Domain=127.0.0.1", from: "http://127.0.0.1/")
        #expect(cookies.field("http://127.0.0.1/") == "h=8")
        #expect(cookies.jar.cookies.first { $0.name == "h" }?.isHostOnly == true)
    }

    @Test("Secure cookies: set over https only, sent over https only, not replaced from http; __Secure- and __Host- prefixes")
    func secure() {
        let cookies = FixedJar()
        cookies.set("token=s3cret; Secure", from: "http://example.com/")
        #expect(cookies.jar.cookies.isEmpty)
        cookies.set("token=s3cret; Secure", from: "https://example.com/")
        #expect(cookies.field("https://example.com/") == "token=s3cret")
        #expect(cookies.field("http://example.com/") == nil)
        cookies.set("token=forged", from: "http://example.com/")
        #expect(cookies.field("https://example.com/") == "token=s3cret", "an http response cannot shadow a Secure cookie")

        // A loopback host is a secure context over http too (RFC 6265bis, as browsers and curl).
        cookies.set("local=1; Secure", from: "http://localhost:8080/")
        cookies.set("loop=1; Secure", from: "http://127.0.0.1/")
        #expect(cookies.field("http://localhost:8080/") == "local=1" && cookies.field("http://127.0.0.1/") == "loop=1")
        cookies.set("__Secure-a=1", "__Secure-b=2; Secure", "__Host-c=3; Secure; Path=/", "__Host-d=4; Secure; Path=/; Domain=example.com", "__host-e=5; Secure", from: "https://example.com/x/y")
        #expect(cookies.jar.cookies.map(\.name).sorted() == ["__Host-c", "__Secure-b", "local", "loop", "token"])
    }

    @Test("expiry: Max-Age wins over Expires, zero or past deletes, cookie dates in their many forms, 400 days at most")
    func expiry() {
        let cookies = FixedJar()
        let now = cookies.now.withLockedValue { $0 }
        cookies.set("a=1; Max-Age=60; Expires=Wed, 09 Jun 2100 10:18:14 GMT", from: "https://example.com/")
        #expect(cookies.jar.cookies.first?.expiresAt == now.addingTimeInterval(60))
        cookies.set("b=2; Expires=Wed, 01-Jan-2031 00:00:00 GMT", "c=3; expires=Wednesday, 01-Jan-31 00:00:00 GMT", "d=4; Expires=Wed Jan  1 00:00:00 2031", from: "https://example.com/")
        let expected = Date(timeIntervalSince1970: 1_924_992_000)
        #expect(["b", "c", "d"].map { name in cookies.jar.cookies.first { $0.name == name }?.expiresAt } == [expected, expected, expected])
        cookies.set("e=5; Expires=Sun, 30 Feb 2031 00:00:00 GMT", "f=6; Expires=Wed, 01 Jan 2031 24:00:00 GMT", "g=7; Max-Age=soon", from: "https://example.com/")
        #expect(["e", "f", "g"].allSatisfy { name in cookies.jar.cookies.first { $0.name == name }?.expiresAt == nil }, "an invalid date is ignored: a session cookie")
        cookies.set("h=8; Max-Age=999999999999999999999999", "i=9; Expires=Fri, 01 Jan 2100 00:00:00 GMT", from: "https://example.com/")
        #expect(cookies.jar.cookies.first { $0.name == "h" }?.expiresAt == now.addingTimeInterval(400 * 86_400))
        #expect(cookies.jar.cookies.first { $0.name == "i" }?.expiresAt == now.addingTimeInterval(400 * 86_400))

        cookies.advance(61)
        #expect(!cookies.jar.cookies.contains { $0.name == "a" }, "expired after its Max-Age")
        cookies.set("b=gone; Max-Age=0", "c=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "d=gone; Max-Age=-1", from: "https://example.com/")
        #expect(cookies.jar.cookies.map(\.name).sorted() == ["e", "f", "g", "h", "i"])
    }

    @Test("replacing keeps the creation time; longer paths go first, then older cookies")
    func order() {
        let cookies = FixedJar()
        cookies.set("a=1; Path=/", from: "https://example.com/")
        cookies.advance(1)
        cookies.set("b=2; Path=/", "c=3; Path=/deep", from: "https://example.com/")
        cookies.advance(1)
        cookies.set("a=changed; Path=/", from: "https://example.com/")
        #expect(cookies.field("https://example.com/deep/x") == "c=3; a=changed; b=2")
        #expect(cookies.jar.cookies.first { $0.name == "a" }?.createdAt == Date(timeIntervalSince1970: 1_900_000_000))
        cookies.jar.removeAll()
        #expect(cookies.field("https://example.com/") == nil)
    }

    @Test("malformed or oversized fields set nothing; 50 cookies per domain at most; the description never shows a value")
    func limits() {
        let cookies = FixedJar()
        let long = String(repeating: "x", count: 4_095)
        cookies.set("novalue", "=empty-name", "bad=a\u{01}b", "big=\(long)", "", from: "https://example.com/")
        #expect(cookies.jar.cookies.isEmpty)
        for index in 0..<51 { cookies.set("n\(index)=\(index)", from: "https://example.com/") }
        #expect(cookies.jar.cookies.count == CookieJar.maximumCookiesPerDomain)
        #expect(!cookies.jar.cookies.contains { $0.name == "n0" }, "the least recently set went first")
        cookies.set("sid=top-secret; Secure; HttpOnly; Max-Age=60", from: "https://example.com/")
        let sid = cookies.jar.cookies.first { $0.name == "sid" }
        #expect(sid?.description == "sid for example.com/, secure, HttpOnly, expires 2030-03-17T17:47:40Z")
        #expect(sid?.description.contains("top-secret") == false)
    }

    @Test("a session with a jar stores cookies and sends them back, on redirects too, merged with the request's own Cookie field; without a jar none")
    func session() async throws {
        let server = try await HTTPTestServer(chain: nil)
        let jar = CookieJar()
        let session = SecureSession(configuration: SecureSessionConfiguration(tls: .init(decisionCache: nil), timeouts: .init(request: .seconds(10)), features: .init(cookieJar: jar)))
        _ = try await session.get(server.url("/set-cookie"), headers: [("X-Set-Cookie", "sid=abc; Path=/"), ("X-Set-Cookie", "lang=en")])
        #expect(jar.cookies.map(\.name) == ["sid", "lang"])
        var seen = try await session.get(server.url("/headers"), headers: [("Cookie", "mine=1")]).decode([String: String].self)
        #expect(seen["cookie"] == "mine=1; sid=abc; lang=en")
        // A cookie set by a redirect goes with the request it leads to.
        seen = try await session.get(server.url("/set-cookie?to=/headers"), headers: [("X-Set-Cookie", "step=redirect")]).decode([String: String].self)
        #expect(seen["cookie"] == "sid=abc; lang=en; step=redirect")
        // Another host (the same server by name) gets nothing.
        seen = try await session.get(server.url("/headers", host: "localhost")).decode([String: String].self)
        #expect(seen["cookie"] == nil)
        // A session without a jar keeps nothing.
        let plain = SecureSession(configuration: SecureSessionConfiguration(tls: .init(decisionCache: nil), timeouts: .init(request: .seconds(10))))
        _ = try await plain.get(server.url("/set-cookie"), headers: [("X-Set-Cookie", "sid=abc")])
        #expect(try await plain.get(server.url("/headers")).decode([String: String].self)["cookie"] == nil)
        await session.shutdown()
        await plain.shutdown()
        await server.stop()
    }

    @Test("over HTTP/2 too: set-cookie fields (lower-case there) are stored, and the cookie goes back in one field")
    func http2() async throws {
        let lab = try TrustLab()
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let jar = CookieJar()
        let session = lab.session { $0.features.cookieJar = jar }
        let set = try await session.get(server.url("/set-cookie"), headers: [("X-Set-Cookie", "sid=abc; Secure"), ("X-Set-Cookie", "lang=en")])
        #expect(set.httpVersion == "HTTP/2")
        #expect(jar.cookies.map(\.name) == ["sid", "lang"])
        let seen = try await session.get(server.url("/headers")).decode([String: String].self)
        #expect(seen["cookie"] == "sid=abc; lang=en")
        await session.shutdown()
        await server.stop()
    }
}
