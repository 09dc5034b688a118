import Foundation
import Logging
import NIOConcurrencyHelpers
import TransportSecurity

/// Keeps the cookies servers set and sends them back, as a browser or `URLSession`'s cookie
/// storage does (RFC 6265, with RFC 6265bis's protections), for a ``SecureSession`` whose
/// configuration names it.
///
/// ```swift
/// let jar = CookieJar()
/// let session = SecureSession(configuration: .init(features: .init(cookieJar: jar)))
/// _ = try await session.send(.json(.post, url: URL(string: "https://api.example.com/login")!, body: credentials))
/// let me = try await session.get(URL(string: "https://api.example.com/me")!)  // sends the session cookie
/// ```
///
/// - A cookie goes back only to the host that set it, or with a `Domain` attribute to that
///   domain and its subdomains; never for a public suffix (`Domain=com`, `Domain=co.uk`: the
///   public suffix list of Debian's `publicsuffix` package, else every single-label name), and
///   a host cannot set a cookie for a domain it is not part of.
/// - Only under its path; `Secure` cookies only over https (or to a loopback host), and only
///   set over https (or by a loopback host); an http response cannot replace a `Secure` cookie; `__Secure-` and `__Host-` prefixes are enforced.
/// - Expired cookies (`Expires`, `Max-Age`, which wins) are dropped; a persistent cookie lasts
///   at most 400 days. At most 50 cookies per domain and 3,000 in all: the least recently set go
///   first.
/// - Ports are not told apart (cookies never were). Cookie values never appear in logs.
///
/// It is safe to share between sessions and tasks.
public final class CookieJar: Sendable {
    /// The most cookies kept for one domain.
    public static let maximumCookiesPerDomain = 50
    /// The most cookies kept in all.
    public static let maximumCookies = 3_000

    private let stored = NIOLockedValueBox<[Cookie]>([])
    private let publicSuffixes: PublicSuffixList?
    private let clock: @Sendable () -> Date
    private let logger: Logger

    /// Creates an empty jar.
    /// - Parameters:
    ///   - publicSuffixes: The domains no cookie may be set for (both sections of the list); the
    ///     list compiled into TransportSecurity by default.
    ///   - logger: Where ignored `Set-Cookie` fields are reported (debug level, never values);
    ///     nothing is logged unless given.
    ///   - clock: The current time (tests fix it).
    public init(
        publicSuffixes: PublicSuffixList? = .bundled,
        logger: Logger = Logger(label: "TransportSecurity.CookieJar", factory: SwiftLogNoOpLogHandler.init),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.publicSuffixes = publicSuffixes
        self.logger = logger
        self.clock = clock
    }

    /// Every cookie kept and not expired, oldest first.
    public var cookies: [Cookie] {
        let now = clock()
        return stored.withLockedValue { cookies in
            cookies.removeAll { $0.hasExpired(at: now) }
            return cookies
        }
    }

    /// The cookies a request to `url` carries, in the order they are sent: longer paths first,
    /// then older first (RFC 6265 §5.4).
    public func cookies(for url: URL) -> [Cookie] {
        cookies(for: url, secureContext: CookieMatching.isSecureContext(url))
    }

    /// The cookies a request to `url` carries when it is (`secureContext`) or is not a secure
    /// context: the session's own judgement, which knows whether a `localhost` request really
    /// goes to the loopback interface or through a proxy or an address override.
    func cookies(for url: URL, secureContext secure: Bool) -> [Cookie] {
        let host = SetCookie.requestHost(of: url)
        let path = CookieMatching.requestPath(of: url)
        return cookies
            .filter { $0.matches(host: host, path: path, secure: secure) }
            .sorted { ($0.path.count, $1.createdAt) > ($1.path.count, $0.createdAt) }
    }

    /// The `Cookie` field for a request to `url`, or `nil` when no cookie goes with it.
    public func cookieField(for url: URL) -> String? {
        cookieField(for: url, secureContext: CookieMatching.isSecureContext(url))
    }

    /// The `Cookie` field for a request to `url` in a secure context or not.
    func cookieField(for url: URL, secureContext: Bool) -> String? {
        let matching = cookies(for: url, secureContext: secureContext)
        return matching.isEmpty ? nil : matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Stores what the `Set-Cookie` fields of a response to `url` set; a field that sets
    /// nothing (malformed, for another domain, `Secure` over http…) is ignored, as browsers do,
    /// and logged with the reason at debug level.
    public func store(setCookieFields fields: [String], from url: URL) {
        store(setCookieFields: fields, from: url, secureContext: CookieMatching.isSecureContext(url))
    }

    /// Stores what the `Set-Cookie` fields of a response to `url` set, that response having come
    /// in a secure context (`secureContext`) or not.
    func store(setCookieFields fields: [String], from url: URL, secureContext isSecureRequest: Bool) {
        let now = clock()
        for field in fields {
            do {
                let cookie = try SetCookie.cookie(from: field, for: url, at: now, publicSuffixes: publicSuffixes, secureContext: isSecureRequest)
                try store(cookie, secureRequest: isSecureRequest, at: now)
            } catch {
                logger.debug("Set-Cookie ignored", metadata: ["url": "\(url.redacted)", "name": "\(Self.name(in: field))", "reason": "\(error)"])
            }
        }
    }

    /// Stores `cookie` as it is (a cookie read back from somewhere else, say), replacing the one
    /// with its name, domain and path; an expired cookie removes that one.
    public func store(_ cookie: Cookie) {
        try? store(cookie, secureRequest: true, at: clock())
    }

    /// Forgets every cookie.
    public func removeAll() {
        stored.withLockedValue { $0.removeAll() }
    }

    private func store(_ cookie: Cookie, secureRequest: Bool, at now: Date) throws(SetCookie.Refusal) {
        let refusal = stored.withLockedValue { cookies -> SetCookie.Refusal? in
            cookies.removeAll { $0.hasExpired(at: now) }
            // An http response must not replace or shadow a Secure cookie (RFC 6265bis §5.7).
            if !secureRequest, !cookie.isSecure, cookies.contains(where: { existing in
                existing.isSecure && existing.name == cookie.name
                    && (CookieMatching.domain(existing.domain, matches: cookie.domain) || CookieMatching.domain(cookie.domain, matches: existing.domain))
                    && CookieMatching.path(cookie.path, matches: existing.path)
            }) {
                return SetCookie.Refusal(description: "an http response cannot replace a Secure cookie")
            }
            var created = cookie.createdAt
            if let index = cookies.firstIndex(where: { $0.isSameSlot(as: cookie) }) {
                created = min(created, cookies[index].createdAt)
                cookies.remove(at: index)
            }
            guard !cookie.hasExpired(at: now) else { return nil }
            cookies.append(cookie.created(at: created))
            let sameDomain = cookies.indices.filter { cookies[$0].domain == cookie.domain }
            if sameDomain.count > Self.maximumCookiesPerDomain { cookies.remove(at: sameDomain[0]) }
            if cookies.count > Self.maximumCookies { cookies.removeFirst() }
            return nil
        }
        if let refusal { throw refusal }
    }

    /// The name a `Set-Cookie` field sets, for logs (never its value).
    private static func name(in field: String) -> Substring {
        field.prefix { $0 != "=" && $0 != ";" }.prefix(64)
    }
}
