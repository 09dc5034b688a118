import Foundation
import NIOHTTP1
import Testing
import TransportSecurity

@testable import SecureSession

/// RFC 9111's rules as the cache reads them: `Cache-Control`, freshness, age, revalidation,
/// and the cache's own bounds. Times are fixed; no server.
@Suite("Response cache rules")
struct ResponseCacheRulesTests {
    let received = Date(timeIntervalSince1970: 1_800_000_000)

    func stored(_ fields: [(String, String)], status: HTTPResponseStatus = .ok, body: String = "kept", varied: [String: String?] = [:], sent: Date? = nil) -> StoredResponse {
        StoredResponse(
            head: HTTPResponseHead(version: .http1_1, status: status, headers: HTTPHeaders(fields)),
            body: Data(body.utf8), trailers: nil, trustDecision: nil, tlsVersion: nil,
            requestTime: sent ?? received, responseTime: received, variedFields: varied
        )
    }

    func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    @Test("Cache-Control: names without case, quoted commas, first of a duplicate, invalid and huge delta-seconds, max-stale alone")
    func cacheControl() {
        let control = CacheControl(fields: [#"Max-Age=60, private="Set-Cookie, X-Token", no-cache"#, "max-age=5, max-stale"])
        #expect(control.seconds("max-age") == 60)
        #expect(control.has("private"))
        #expect(control.has("no-cache"))
        #expect(!control.has("x-token"), "a comma inside a quoted string does not split")
        #expect(control.maximumStaleness == Int.max)
        #expect(CacheControl(fields: ["max-age=soon"]).seconds("max-age") == 0)
        #expect(CacheControl(fields: ["max-age=-1"]).seconds("max-age") == 0)
        #expect(CacheControl(fields: ["max-age"]).seconds("max-age") == 0)
        #expect(CacheControl(fields: [#"max-age="30""#]).seconds("max-age") == 30)
        #expect(CacheControl(fields: ["max-age=99999999999999999999999"]).seconds("max-age") == 1 << 31)
        #expect(CacheControl(fields: ["max-stale=10"]).maximumStaleness == 10)
        #expect(CacheControl(fields: []).seconds("max-age") == nil)
        #expect(CacheControl(fields: [" , ,"]).has("") == false)
    }

    @Test("freshness lifetime: max-age before Expires, Expires after Date, an Expires that is no date, a tenth since Last-Modified (at most a day), else none")
    func freshnessLifetime() {
        let date = httpDate(received)
        #expect(stored([("Cache-Control", "max-age=60"), ("Expires", httpDate(received + 3600)), ("Date", date)]).freshnessLifetime == 60)
        #expect(stored([("Expires", httpDate(received + 3600)), ("Date", httpDate(received - 600))]).freshnessLifetime == 4200)
        #expect(stored([("Expires", "0"), ("Date", date)]).freshnessLifetime == 0)
        #expect(stored([("Expires", httpDate(received - 60)), ("Date", date)]).freshnessLifetime == 0)
        #expect(stored([("Last-Modified", httpDate(received - 1000)), ("Date", date)]).freshnessLifetime == 100)
        #expect(stored([("Last-Modified", httpDate(received - 365 * 86_400)), ("Date", date)]).freshnessLifetime == 86_400)
        #expect(stored([("Last-Modified", httpDate(received - 1000))], status: .created).freshnessLifetime == 0, "201 is not cacheable by default")
        #expect(stored([("Last-Modified", httpDate(received - 1000)), ("Cache-Control", "public")], status: .created).freshnessLifetime == 100)
        #expect(stored([]).freshnessLifetime == 0)
    }

    @Test("current age: Age with the round trip, or the time since Date, plus the time kept")
    func currentAge() {
        let response = stored([("Age", "30")], sent: received - 2)
        #expect(response.currentAge(at: received) == 32)
        #expect(response.currentAge(at: received + 10) == 42)
        let dated = stored([("Date", httpDate(received - 50))])
        #expect(dated.currentAge(at: received + 5) == 55)
        #expect(stored([("Age", "junk")]).currentAge(at: received) == 0)
    }

    @Test("answers a request: fresh yes; no-cache on either side, Pragma, request max-age and min-fresh no; stale within max-stale unless must-revalidate")
    func answers() {
        let fresh = stored([("Cache-Control", "max-age=100")])
        let at = received + 50
        let none = CacheControl(fields: [])
        #expect(fresh.answers(none, pragmaNoCache: false, at: at))
        #expect(!fresh.answers(none, pragmaNoCache: false, at: received + 100), "at its lifetime it is stale")
        #expect(!fresh.answers(CacheControl(fields: ["no-cache"]), pragmaNoCache: false, at: at))
        #expect(!fresh.answers(none, pragmaNoCache: true, at: at))
        #expect(!stored([("Cache-Control", "max-age=100, no-cache")]).answers(none, pragmaNoCache: false, at: at))
        #expect(!fresh.answers(CacheControl(fields: ["max-age=40"]), pragmaNoCache: false, at: at))
        #expect(fresh.answers(CacheControl(fields: ["max-age=60"]), pragmaNoCache: false, at: at))
        #expect(fresh.answers(CacheControl(fields: ["min-fresh=50"]), pragmaNoCache: false, at: at))
        #expect(!fresh.answers(CacheControl(fields: ["min-fresh=51"]), pragmaNoCache: false, at: at))
        let stale = received + 130
        #expect(!fresh.answers(none, pragmaNoCache: false, at: stale))
        #expect(fresh.answers(CacheControl(fields: ["max-stale=30"]), pragmaNoCache: false, at: stale))
        #expect(!fresh.answers(CacheControl(fields: ["max-stale=29"]), pragmaNoCache: false, at: stale))
        #expect(fresh.answers(CacheControl(fields: ["max-stale"]), pragmaNoCache: false, at: stale))
        #expect(!stored([("Cache-Control", "max-age=100, must-revalidate")]).answers(CacheControl(fields: ["max-stale"]), pragmaNoCache: false, at: stale))
    }

    @Test("stale-while-revalidate (RFC 5861 §3): a stale response within the window answers while revalidated; not fresh ones, not past the window, not with no-cache or must-revalidate on either side, a request's max-age it is older than or its min-fresh")
    func staleWhileRevalidate() {
        let kept = stored([("Cache-Control", "max-age=100, stale-while-revalidate=60")])
        let none = CacheControl(fields: [])
        #expect(!kept.answersWhileRevalidating(none, pragmaNoCache: false, at: received + 50), "fresh: answered as fresh, no revalidation")
        #expect(kept.answersWhileRevalidating(none, pragmaNoCache: false, at: received + 101))
        #expect(kept.answersWhileRevalidating(none, pragmaNoCache: false, at: received + 160))
        #expect(!kept.answersWhileRevalidating(none, pragmaNoCache: false, at: received + 161), "past the window")
        let at = received + 130
        #expect(!stored([("Cache-Control", "max-age=100")]).answersWhileRevalidating(none, pragmaNoCache: false, at: at))
        #expect(!stored([("Cache-Control", "max-age=100, stale-while-revalidate=60, must-revalidate")]).answersWhileRevalidating(none, pragmaNoCache: false, at: at))
        #expect(!stored([("Cache-Control", "max-age=100, stale-while-revalidate=60, no-cache")]).answersWhileRevalidating(none, pragmaNoCache: false, at: at))
        #expect(!kept.answersWhileRevalidating(CacheControl(fields: ["no-cache"]), pragmaNoCache: false, at: at))
        #expect(!kept.answersWhileRevalidating(none, pragmaNoCache: true, at: at))
        #expect(!kept.answersWhileRevalidating(CacheControl(fields: ["max-age=120"]), pragmaNoCache: false, at: at))
        #expect(kept.answersWhileRevalidating(CacheControl(fields: ["max-age=130"]), pragmaNoCache: false, at: at))
        #expect(!kept.answersWhileRevalidating(CacheControl(fields: ["min-fresh=1"]), pragmaNoCache: false, at: at))
    }

    @Test("stale-if-error (RFC 5861 §4): usable until the response's window, or the request's own, has passed; never with no-cache or must-revalidate in the response, nor with the request's no-cache unless it names its own window")
    func staleIfError() {
        let kept = stored([("Cache-Control", "max-age=100, stale-if-error=60")])
        let none = CacheControl(fields: [])
        let at = received + 130
        #expect(kept.usableAfterFailure(none, pragmaNoCache: false, at: at) == received + 160)
        #expect(kept.usableAfterFailure(none, pragmaNoCache: false, at: received + 50) == received + 160, "fresh (revalidation asked for): until the window ends")
        #expect(kept.usableAfterFailure(none, pragmaNoCache: false, at: received + 161) == nil, "past the window")
        #expect(kept.usableAfterFailure(CacheControl(fields: ["stale-if-error=300"]), pragmaNoCache: false, at: received + 161) == received + 400, "the request's own window")
        #expect(kept.usableAfterFailure(CacheControl(fields: ["stale-if-error=0"]), pragmaNoCache: false, at: at) == nil, "the request refuses stale answers")
        #expect(stored([("Cache-Control", "max-age=100")]).usableAfterFailure(none, pragmaNoCache: false, at: at) == nil)
        #expect(stored([("Cache-Control", "max-age=100")]).usableAfterFailure(CacheControl(fields: ["stale-if-error=60"]), pragmaNoCache: false, at: at) == received + 160)
        #expect(stored([("Cache-Control", "max-age=100, stale-if-error=60, must-revalidate")]).usableAfterFailure(none, pragmaNoCache: false, at: at) == nil)
        #expect(stored([("Cache-Control", "stale-if-error=60, no-cache")]).usableAfterFailure(CacheControl(fields: ["stale-if-error=60"]), pragmaNoCache: false, at: at) == nil)
        #expect(kept.usableAfterFailure(CacheControl(fields: ["no-cache"]), pragmaNoCache: false, at: at) == nil)
        #expect(kept.usableAfterFailure(none, pragmaNoCache: true, at: at) == nil)
        #expect(kept.usableAfterFailure(CacheControl(fields: ["no-cache", "stale-if-error=60"]), pragmaNoCache: false, at: at) == received + 160)
    }

    @Test("stale-if-error answers for a server that failed (a connection that failed before or during the answer, a timeout), never in place of a rejected certificate, a failed TLS handshake, a cancellation, a malformed answer or a transport rule's refusal")
    func staleOnlyAfterServerFailures() {
        let failed = SecureSessionError.connectionFailed("127.0.0.1:443: connection refused")
        #expect(SecureSession.fallbackReason(failed) == "connection failed: 127.0.0.1:443: connection refused")
        #expect(SecureSession.fallbackReason(ConnectionNotEstablished(error: failed)) == "connection failed: 127.0.0.1:443: connection refused")
        #expect(SecureSession.fallbackReason(SecureSessionError.timeout(.seconds(2))) == "timed out after 2.0 seconds")
        let rejection = TrustDecision(isTrusted: false, decider: .evaluator("SecurityPolicy rule 4 (public-key pinning)"), reason: "no pinned key")
        for error: any Error in [
            SecureSessionError.trustRejected(rejection), SecureSessionError.tlsFailure("handshake failure"), SecureSessionError.cancelled,
            CancellationError(), SecureSessionError.invalidResponse("no status line"),
            SecureSessionError.refusedByTransportRules(host: "api.example.com", reason: "TLS 1.2 required"),
        ] {
            #expect(SecureSession.fallbackReason(error) == nil, "\(error)")
        }
    }

    @Test("a 304 updates the fields it sends, but not those of the kept body's bytes nor hop-by-hop ones; its times become the response's")
    func revalidation() {
        let kept = stored([("Content-Length", "4"), ("ETag", #""v1""#), ("X-Version", "1"), ("X-Version", "one"), ("Cache-Control", "max-age=0")])
        let notModified = HTTPResponseHead(version: .http1_1, status: .notModified, headers: HTTPHeaders([
            ("X-Version", "2"), ("Cache-Control", "max-age=60"), ("Content-Length", "0"), ("Content-Encoding", "gzip"),
            ("Connection", "X-Hop"), ("X-Hop", "1"), ("Keep-Alive", "timeout=5"),
        ]))
        let updated = kept.revalidated(by: notModified, requestTime: received + 10, responseTime: received + 11)
        #expect(updated.head.headers["X-Version"] == ["2"])
        #expect(updated.head.headers["Cache-Control"] == ["max-age=60"])
        #expect(updated.head.headers["Content-Length"] == ["4"])
        #expect(updated.head.headers["Content-Encoding"].isEmpty)
        #expect(updated.head.headers["X-Hop"].isEmpty && updated.head.headers["Keep-Alive"].isEmpty && updated.head.headers["Connection"].isEmpty)
        #expect(updated.head.status == .ok)
        #expect(updated.body == kept.body)
        #expect(updated.responseTime == received + 11)
        #expect(updated.validators.map(\.name) == ["If-None-Match"])
        #expect(updated.servedHead(at: received + 21).headers["Age"] == ["11"])
    }

    @Test("Vary: the fields named, lowercased; `*` keeps nothing; values compared trimmed and joined")
    func vary() {
        #expect(CacheKey.variedNames(of: ["Accept-Language, X-Tenant", "accept"]) == ["accept-language", "x-tenant", "accept"])
        #expect(CacheKey.variedNames(of: ["Accept, *"]) == nil)
        #expect(CacheKey.value(of: "x-a", in: [("X-A", " 1 "), ("Other", "z"), ("x-a", "2")]) == "1, 2")
        #expect(CacheKey.value(of: "x-a", in: []) == nil)
    }

    func key(_ path: String, authorization: String? = nil, evaluator: any ServerTrustEvaluating = SecurityPolicy.default) -> CacheKey {
        let url = URL(string: "https://API.example.test\(path)#fragment")!
        let request = SecureRequest(url: url, headers: authorization.map { [("Authorization", $0)] } ?? [])
        let connection = ConnectionKey(
            isSecure: true, host: "api.example.test", port: 443, identity: nil, evaluator: AnyServerTrustEvaluator(evaluator), handler: nil, isSingleUse: false
        )
        return CacheKey(request: request, connectionKey: connection)!
    }

    @Test("keys: the host without case, no fragment, the port named; credentials and evaluators tell keys apart; the HTTP version does not")
    func keys() throws {
        #expect(key("/a").resource == "https://api.example.test:443/a")
        #expect(key("/a") == key("/a"))
        #expect(key("/a", authorization: "Bearer one") != key("/a", authorization: "Bearer two"))
        #expect(key("/a", authorization: "Bearer one") != key("/a"))
        #expect(key("/a", authorization: "Bearer one") == key("/a", authorization: "Bearer one"))
        #expect(key("/a").credentials == nil)
        #expect(key("/a", evaluator: SecurityPolicy(pinningMode: .none, validatesDomainName: false)) != key("/a"))
        let http1 = ConnectionKey(
            isSecure: true, host: "api.example.test", port: 443, identity: nil, evaluator: AnyServerTrustEvaluator(SecurityPolicy.default), handler: nil,
            isSingleUse: false, isHTTP1Only: true
        )
        #expect(CacheKey(request: SecureRequest(url: URL(string: "https://api.example.test/a")!), connectionKey: http1) == key("/a"))
        #expect(CacheKey(request: SecureRequest(url: URL(string: "ftp://api.example.test/a")!), connectionKey: http1) == nil)
    }

    @Test("bounded: the least recently used go first; a response over the entry size is not kept and removes the one it replaces; variants kept apart")
    func bounds() {
        let body = String(repeating: "b", count: 700)
        let cache = ResponseCache(capacity: 3_000, maximumEntrySize: 1_500)
        cache.store(stored([], body: body), for: key("/1"))
        cache.store(stored([], body: body), for: key("/2"))
        cache.store(stored([], body: body), for: key("/3"))
        #expect(cache.count == 3)
        #expect(cache.response(for: key("/1"), fields: []) != nil, "used: now the most recent")
        cache.store(stored([], body: body), for: key("/4"))
        #expect(cache.usage <= 3_000)
        #expect(cache.response(for: key("/2"), fields: []) == nil, "the least recently used went first")
        #expect(cache.response(for: key("/1"), fields: []) != nil)
        #expect(cache.response(for: key("/4"), fields: []) != nil)

        cache.store(stored([], body: String(repeating: "x", count: 2_000)), for: key("/1"))
        #expect(cache.response(for: key("/1"), fields: []) == nil, "too large to keep, and the old one is no longer current")

        cache.removeAll()
        #expect(cache.count == 0 && cache.usage == 0)
        cache.store(stored([], body: "fr", varied: ["accept-language": "fr"]), for: key("/v"))
        cache.store(stored([], body: "any", varied: ["accept-language": nil]), for: key("/v"))
        cache.store(stored([], body: "fr again", varied: ["accept-language": "fr"]), for: key("/v"))
        #expect(cache.count == 2)
        #expect(cache.response(for: key("/v"), fields: [("Accept-Language", "fr")])?.body == Data("fr again".utf8))
        #expect(cache.response(for: key("/v"), fields: [])?.body == Data("any".utf8))
        #expect(cache.response(for: key("/v"), fields: [("Accept-Language", "de")]) == nil)
        cache.removeResponses(for: URL(string: "https://api.example.test:443/v")!)
        #expect(cache.count == 0 && cache.usage == 0)
        #expect(ResponseCache(capacity: 100).maximumEntrySize == 5)
    }
}
