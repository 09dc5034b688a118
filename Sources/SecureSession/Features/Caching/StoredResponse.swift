import Foundation
import NIOHTTP1
import TransportSecurity

/// A response kept by a ``ResponseCache``: its head and body as the caller got them, how it was
/// obtained (the trust decision and TLS version of the connection that answered), when it was
/// asked for and received, and the request fields its `Vary` names. Its freshness and age are
/// RFC 9111's (§4.2).
struct StoredResponse: Sendable {
    /// The head, without hop-by-hop fields, updated by every `304` that revalidated it.
    var head: HTTPResponseHead
    let body: Data
    let trailers: HTTPHeaders?
    let trustDecision: TrustDecision?
    let tlsVersion: TLSProtocolVersion?
    /// When the request that obtained (or last revalidated) the response was sent.
    var requestTime: Date
    /// When that response arrived.
    var responseTime: Date
    /// The value of each request field the response's `Vary` names (lowercased name; `nil`:
    /// absent), as the request that obtained it had them.
    let variedFields: [String: String?]

    /// The bytes the entry counts for against the cache's capacity.
    var size: Int {
        body.count + head.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 } + 256
    }

    var cacheControl: CacheControl { CacheControl(fields: head.headers["Cache-Control"]) }

    // MARK: Freshness (RFC 9111 §4.2)

    /// How long the response is fresh, in seconds from when it was made: its `max-age`, else its
    /// `Expires` after its `Date` (an `Expires` that is no date: already expired), else for a
    /// status cacheable by default with a `Last-Modified`, a tenth of the time since that
    /// modification, at most a day (§4.2.2); else 0. (`s-maxage` is for shared caches.)
    var freshnessLifetime: TimeInterval {
        let control = cacheControl
        if let maxAge = control.seconds("max-age") { return TimeInterval(maxAge) }
        let date = dateValue
        if let expires = head.headers.first(name: "Expires") {
            guard let expiry = CookieDate.parse(expires) else { return 0 }
            return max(0, expiry.timeIntervalSince(date))
        }
        if Self.heuristicallyCacheable.contains(Int(head.status.code)) || control.has("public"),
            let modified = head.headers.first(name: "Last-Modified").flatMap(CookieDate.parse)
        {
            return min(max(0, date.timeIntervalSince(modified)) / 10, 86_400)
        }
        return 0
    }

    /// How old the response is at `now` (§4.2.3): the age it arrived with (its `Age`, or the
    /// time since its `Date`, with the request's round trip), plus the time it has been kept.
    func currentAge(at now: Date) -> TimeInterval {
        let ageValue = TimeInterval(CacheControl.deltaSeconds(head.headers.first(name: "Age")?.trimmingHTTPWhitespace))
        let apparentAge = max(0, responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        return correctedInitialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// Whether the response may answer a request with `requestControl` at `now` without asking
    /// the server (§4.2, §5.2.1): not when either side said `no-cache` (a request's
    /// `Pragma: no-cache` counts when it has no `Cache-Control`), nor when it is older than the
    /// request's `max-age`; a fresh response for at least the request's `min-fresh`, or a stale
    /// one within its `max-stale` unless the response said `must-revalidate`.
    func answers(_ requestControl: CacheControl, pragmaNoCache: Bool, at now: Date) -> Bool {
        let control = cacheControl
        guard !requestControl.has("no-cache"), !pragmaNoCache, !control.has("no-cache") else { return false }
        let age = currentAge(at: now)
        if let maximumAge = requestControl.seconds("max-age"), age > TimeInterval(maximumAge) { return false }
        let remaining = freshnessLifetime - age
        if remaining > 0 { return remaining >= TimeInterval(requestControl.seconds("min-fresh") ?? 0) }
        guard let staleness = requestControl.maximumStaleness, !control.has("must-revalidate") else { return false }
        return -remaining <= TimeInterval(staleness)
    }

    /// How long past its freshness lifetime the response is at `now`; negative while fresh.
    func staleness(at now: Date) -> TimeInterval { currentAge(at: now) - freshnessLifetime }

    /// Whether the response, stale, may answer a request with `requestControl` at `now` while
    /// the session revalidates it in the background (RFC 5861 §3): it is stale by no more than
    /// its `stale-while-revalidate`, and neither side asks for it to be validated first (the
    /// response's `no-cache` or `must-revalidate`, the request's `no-cache`, `Pragma: no-cache`,
    /// a `max-age` it is older than, or any `min-fresh`).
    func answersWhileRevalidating(_ requestControl: CacheControl, pragmaNoCache: Bool, at now: Date) -> Bool {
        let control = cacheControl
        guard let window = control.seconds("stale-while-revalidate"), !control.has("no-cache"), !control.has("must-revalidate"),
            !requestControl.has("no-cache"), !pragmaNoCache, !requestControl.has("min-fresh")
        else { return false }
        if let maximumAge = requestControl.seconds("max-age"), currentAge(at: now) > TimeInterval(maximumAge) { return false }
        let stale = staleness(at: now)
        return stale > 0 && stale <= TimeInterval(window)
    }

    /// Until when the response may answer, stale, a request with `requestControl` whose server
    /// fails (RFC 5861 §4): while it is stale by no more than the request's `stale-if-error`,
    /// else the response's; `nil` when neither gives one, when the response said `no-cache` or
    /// `must-revalidate`, or when the request said `no-cache` (or `Pragma: no-cache`) without a
    /// `stale-if-error` of its own.
    func usableAfterFailure(_ requestControl: CacheControl, pragmaNoCache: Bool, at now: Date) -> Date? {
        let control = cacheControl
        guard !control.has("no-cache"), !control.has("must-revalidate") else { return nil }
        let asked = requestControl.seconds("stale-if-error")
        if asked == nil, requestControl.has("no-cache") || pragmaNoCache { return nil }
        guard let window = asked ?? control.seconds("stale-if-error") else { return nil }
        let limit = now.addingTimeInterval(TimeInterval(window) - staleness(at: now))
        return limit >= now ? limit : nil
    }

    /// The response's `Date`, else when it arrived.
    private var dateValue: Date {
        head.headers.first(name: "Date").flatMap(CookieDate.parse) ?? responseTime
    }

    /// The statuses a response may be stored with and given a heuristic freshness without saying
    /// so (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    // MARK: Validators

    /// The fields that make a request conditional on this response still being current:
    /// `If-None-Match` with its `ETag`, `If-Modified-Since` with its `Last-Modified` (§4.3.1);
    /// empty when it has neither.
    var validators: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        if let tag = head.headers.first(name: "ETag") { fields.append(("If-None-Match", tag)) }
        if let modified = head.headers.first(name: "Last-Modified") { fields.append(("If-Modified-Since", modified)) }
        return fields
    }

    /// The response updated by the `304` that revalidated it (§4.3.4): the `304`'s fields
    /// replace the stored ones of the same names, except those that describe the stored body's
    /// bytes (`Content-Length`, `Content-Encoding`, `Content-Range`, `Transfer-Encoding`) and
    /// hop-by-hop fields; the times become those of the revalidation.
    func revalidated(by notModified: HTTPResponseHead, requestTime: Date, responseTime: Date) -> StoredResponse {
        var updated = self
        let fields = Self.endToEndFields(of: notModified.headers).filter { !Self.describesBody($0.name) }
        for name in Set(fields.map { $0.name.lowercased() }) { updated.head.headers.remove(name: name) }
        for field in fields { updated.head.headers.add(name: field.name, value: field.value) }
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }

    private static func describesBody(_ name: String) -> Bool {
        ["content-length", "content-encoding", "content-range", "transfer-encoding"].contains(name.lowercased())
    }

    /// `headers` without the hop-by-hop fields (RFC 9111 §3.1): `Connection`, those it names,
    /// `Keep-Alive`, `Proxy-Connection`, `TE`, `Upgrade` and `Proxy-Authenticate`.
    static func endToEndFields(of headers: HTTPHeaders) -> [(name: String, value: String)] {
        var hopByHop: Set<String> = ["connection", "keep-alive", "proxy-connection", "te", "upgrade", "proxy-authenticate", "proxy-authentication-info"]
        for value in headers["Connection"] {
            for name in value.split(separator: ",") { hopByHop.insert(name.trimmingHTTPWhitespace.lowercased()) }
        }
        return headers.filter { !hopByHop.contains($0.name.lowercased()) }
    }

    /// The head as served from the cache at `now`: with its `Age` (§5.1).
    func servedHead(at now: Date) -> HTTPResponseHead {
        var served = head
        served.headers.replaceOrAdd(name: "Age", value: String(Int(currentAge(at: now).rounded(.down))))
        return served
    }
}
