import Foundation

/// A cookie a server set, as a ``CookieJar`` keeps it (RFC 6265 §5.3): the name and value, the
/// domain and path it is sent to, when it expires and whether it needs https.
///
/// Its `description` leaves the value out: cookie values are often session credentials.
public struct Cookie: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The name (case-sensitive).
    public let name: String
    /// The value, as the server sent it.
    public let value: String
    /// The host that set it (a host-only cookie), or the domain its `Domain` attribute named,
    /// lowercased, without a leading dot.
    public let domain: String
    /// Whether only ``domain`` itself gets the cookie (no `Domain` attribute), not its subdomains.
    public let isHostOnly: Bool
    /// The path it is sent under (`/` and everything below, for `/`).
    public let path: String
    /// When it expires; `nil` for a session cookie, kept until the jar is emptied.
    public let expiresAt: Date?
    /// Whether it is sent over https only (`Secure`).
    public let isSecure: Bool
    /// Whether the server marked it `HttpOnly` (hidden from scripts; kept for completeness).
    public let isHTTPOnly: Bool
    /// When the jar first stored a cookie of this name, domain and path.
    public let createdAt: Date

    /// Creates a cookie as a jar would store it.
    public init(
        name: String,
        value: String,
        domain: String,
        isHostOnly: Bool = true,
        path: String = "/",
        expiresAt: Date? = nil,
        isSecure: Bool = false,
        isHTTPOnly: Bool = false,
        createdAt: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.isHostOnly = isHostOnly
        self.path = path
        self.expiresAt = expiresAt
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.createdAt = createdAt
    }

    /// `NAME for DOMAIN/PATH` with its flags and expiry, never the value.
    public var description: String {
        var text = "\(name) for \(isHostOnly ? "" : ".")\(domain)\(path)"
        if isSecure { text += ", secure" }
        if isHTTPOnly { text += ", HttpOnly" }
        text += expiresAt.map { ", expires \($0.formatted(.iso8601))" } ?? ", session"
        return text
    }

    /// Whether the cookie has expired at `time`.
    func hasExpired(at time: Date) -> Bool { expiresAt.map { $0 <= time } ?? false }

    /// The same cookie, first stored at `time`.
    func created(at time: Date) -> Cookie {
        Cookie(name: name, value: value, domain: domain, isHostOnly: isHostOnly, path: path, expiresAt: expiresAt, isSecure: isSecure, isHTTPOnly: isHTTPOnly, createdAt: time)
    }

    /// Whether this cookie goes with a request to `host` (lowercased, an IP address without
    /// brackets) for `path` over a connection that is secure or not (RFC 6265 §5.4).
    func matches(host: String, path requestPath: String, secure: Bool) -> Bool {
        guard !isSecure || secure else { return false }
        let domainMatches = isHostOnly ? host == domain : CookieMatching.domain(host, matches: domain)
        return domainMatches && CookieMatching.path(requestPath, matches: path)
    }

    /// Whether this and `other` are the same cookie for the jar: same name, domain and path.
    func isSameSlot(as other: Cookie) -> Bool {
        name == other.name && domain == other.domain && path == other.path
    }
}
