import Foundation
import TransportSecurity

/// RFC 6265's matching rules: domain match (§5.1.3), default path and path match (§5.1.4).
enum CookieMatching {
    /// Whether `host` domain-matches `domain`: the same, or a name ending with `.domain`
    /// (never for an IP address).
    static func domain(_ host: String, matches domain: String) -> Bool {
        if host == domain { return true }
        return host.hasSuffix("." + domain) && !isIPAddress(host)
    }

    /// Whether `requestPath` path-matches `cookiePath`: the same, or below it.
    static func path(_ requestPath: String, matches cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// The path of a request to `url` as it is sent, percent-encoded (RFC 6265's request-uri
    /// path, as curl and browsers match it): `/a%2Fb` is one segment to the server, never `/a/b`.
    static func requestPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return path.isEmpty ? "/" : path
    }

    /// The path a cookie gets without a `Path` attribute: the request path up to its last `/`.
    static func defaultPath(of requestPath: String) -> String {
        guard requestPath.hasPrefix("/"), let last = requestPath.lastIndex(of: "/"), last != requestPath.startIndex else { return "/" }
        return String(requestPath[..<last])
    }

    /// Whether a request to `url` counts as secure for `Secure` cookies (RFC 6265bis §5.8.3's
    /// "potentially trustworthy" origins, as browsers and curl have it): https, or a loopback
    /// host (`localhost` and its subdomains, `127.0.0.0/8`, `::1`), whose traffic never leaves
    /// the machine.
    static func isSecureContext(_ url: URL) -> Bool {
        url.scheme?.lowercased() == "https" || ServerHost(url.host ?? "").isLoopback
    }

    /// Whether `host` is an IPv4 or IPv6 literal.
    static func isIPAddress(_ host: String) -> Bool { ServerHost(host).isIPAddress }
}
