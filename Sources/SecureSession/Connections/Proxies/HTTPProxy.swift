import Foundation
import TransportSecurity

/// A proxy. Through an HTTP proxy, `https://` requests reach their server through a `CONNECT`
/// tunnel (TLS, the trust decision and pins stay end to end: the proxy sees only encrypted
/// bytes) and `http://` requests are sent to the proxy in absolute form. An HTTPS proxy is the
/// same reached over TLS of its own (the proxy's certificate judged by ``trustEvaluator``), so
/// that nothing, not even the proxy's credentials or the names of the servers, crosses the
/// network in the clear; the server's TLS then runs inside the proxy's. Through a SOCKS5 proxy
/// (RFC 1928, swift-nio-extras' client) every request goes through a tunnel.
public struct HTTPProxy: Sendable, Hashable, CustomStringConvertible {
    /// How requests go through the proxy.
    public enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy (`http://`): `CONNECT` tunnels, absolute-form requests.
        case http
        /// An HTTP proxy reached over TLS (`https://`, as curl reads it).
        case https
        /// A SOCKS5 proxy to which the client gives the server's address, resolved here
        /// (`socks5://`, as curl reads it).
        case socks5
        /// A SOCKS5 proxy to which the client gives the server's name, resolved by the proxy
        /// (`socks5h://`): nothing about the server is looked up here.
        case socks5h
    }

    /// The proxy's host name or address.
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The user whose password goes to the proxy: as `Proxy-Authorization: Basic …` to an HTTP
    /// or HTTPS proxy, by SOCKS5's username/password method (RFC 1929) to a SOCKS proxy.
    public var user: String?
    /// The password of ``user``. Never logged nor shown in a description.
    public var password: String?
    /// HTTP, HTTPS or SOCKS5.
    public var kind: Kind
    /// Judges the certificate of an HTTPS proxy, for the proxy's host name (curl's
    /// `--proxy-pinnedpubkey` is a `PublicKeysTrustEvaluator` here); `nil`: the default policy
    /// (a chain to the session's system store, the proxy's name) with the session's system store
    /// and evaluation time. A request through a proxy of another kind that has one fails with
    /// ``SecureSessionError/invalidURL(_:)``: pins for a proxy without TLS are never ignored.
    public var trustEvaluator: AnyServerTrustEvaluator?

    /// A proxy at `host:port`, with Basic credentials when `user` is given.
    public init(
        host: String,
        port: Int,
        user: String? = nil,
        password: String? = nil,
        kind: Kind = .http,
        trustEvaluator: (any ServerTrustEvaluating)? = nil
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.kind = kind
        self.trustEvaluator = trustEvaluator.map { AnyServerTrustEvaluator($0) }
    }

    /// Whether requests reach the proxy's server through `CONNECT` tunnels and absolute-form
    /// requests (HTTP and HTTPS proxies), not SOCKS.
    var speaksHTTP: Bool { kind == .http || kind == .https }

    /// A proxy from a URL as `HTTPS_PROXY`, `ALL_PROXY` and curl's `--proxy` write it:
    /// `http://[user:password@]host[:port]` or `host[:port]`, `https://[user:password@]host[:port]`,
    /// `socks5://[user:password@]host[:port]`, `socks5h://[user:password@]host[:port]` (port 443
    /// for `https://`, else 1080, when none is given, as curl assumes).
    /// - Throws: ``SecureSessionError/invalidURL(_:)`` for another scheme (SOCKS4), no host, a
    ///   port out of range, or an HTTP proxy's user name with a colon (written `%3A`).
    public init(url text: String, trustEvaluator: (any ServerTrustEvaluating)? = nil) throws {
        let written = text.contains("://") ? text : "http://" + text
        // The host as `URL` gives it: an internationalized name in its ASCII form (`xn--…`), as
        // DNS, SNI and the proxy's certificate name it (URLComponents keeps the Unicode text),
        // and an IPv6 literal without brackets.
        guard let components = URLComponents(string: written), let host = components.url?.host, !host.isEmpty else {
            throw SecureSessionError.invalidURL("the proxy '\(Self.withoutPassword(text))' is not [http://][user:password@]host[:port]")
        }
        guard let kind = components.scheme.flatMap({ Kind(rawValue: $0.lowercased()) }) else {
            throw SecureSessionError.invalidURL(
                "the proxy '\(Self.withoutPassword(text))' is not an http://, https://, socks5:// or socks5h:// proxy (SOCKS4 is not supported)"
            )
        }
        if let problem = ServerHost(host).nameProblem {
            throw SecureSessionError.invalidURL("the proxy '\(Self.withoutPassword(text))': its host \(problem)")
        }
        let port = components.port ?? (kind == .https ? 443 : 1080)
        guard (1...65_535).contains(port) else {
            throw SecureSessionError.invalidURL("the proxy's port \(port) is not between 1 and 65535")
        }
        if kind == .http || kind == .https, components.user?.unicodeScalars.contains(":") == true {
            throw SecureSessionError.invalidURL(
                "the proxy '\(Self.withoutPassword(text))': its user name holds a colon (%3A), which Basic authentication cannot carry (RFC 7617 §2): the proxy would read the name only up to it"
            )
        }
        self.init(host: host, port: port, user: components.user, password: components.password, kind: kind, trustEvaluator: trustEvaluator)
    }

    /// The `Proxy-Authorization` field value, when the proxy has a user.
    var authorization: String? {
        guard let user else { return nil }
        return "Basic " + Data("\(user):\(password ?? "")".utf8).base64EncodedString()
    }

    /// `host:port` (and the user, never the password), `https://host:port` for HTTPS,
    /// `socks5://host:port` for SOCKS.
    public var description: String {
        (kind == .http ? "" : "\(kind.rawValue)://") + (user.map { "\($0)@" } ?? "") + "\(host.inAuthorityForm):\(port)"
    }

    private static func withoutPassword(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        return "…" + text[at...]
    }
}

/// Which proxy, if any, each request goes through: one for `https://` URLs, one for `http://`
/// URLs, and the hosts that go direct.
public struct HTTPProxySettings: Sendable, Hashable {
    /// The proxy of `https://` requests (a `CONNECT` tunnel).
    public var https: HTTPProxy?
    /// The proxy of `http://` requests (absolute-form requests).
    public var http: HTTPProxy?
    /// Hosts that go direct, as `NO_PROXY` writes them: `example.com` (that host and its
    /// subdomains), `.example.com` (the same), an address (that address only), an address range
    /// (`10.0.0.0/8`, `fd00::/8`: an address in it, whether the URL names it or an address
    /// override connects to it), or `*` (every host).
    public var bypass: [String]
    /// Whether loopback destinations (`localhost`, `127.0.0.0/8`, `::1`, or a host an address
    /// override sends to one of them) go direct whatever ``bypass`` says, as Go's
    /// `ProxyFromEnvironment` does. `true` for settings read from the environment.
    public var bypassesLoopback: Bool

    /// No proxy: every request goes direct.
    public static let none = HTTPProxySettings(https: nil, http: nil, bypass: [])

    /// Settings from proxies and bypass entries.
    public init(https: HTTPProxy? = nil, http: HTTPProxy? = nil, bypass: [String] = [], bypassesLoopback: Bool = false) {
        self.https = https
        self.http = http
        self.bypass = bypass
        self.bypassesLoopback = bypassesLoopback
    }

    /// The settings the environment gives, as curl reads them: `https_proxy` / `HTTPS_PROXY`
    /// for `https://`, `http_proxy` (lower case only, as curl) for `http://`, `all_proxy` /
    /// `ALL_PROXY` for both when the scheme's own is missing, `no_proxy` / `NO_PROXY` (comma
    /// separated) to go direct; loopback destinations always go direct.
    /// - Throws: ``SecureSessionError/invalidURL(_:)`` when a variable holds no usable proxy.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> HTTPProxySettings {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        }
        let all = try value("all_proxy", "ALL_PROXY").map { try HTTPProxy(url: $0) }
        let bypass = (value("no_proxy", "NO_PROXY") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return HTTPProxySettings(
            https: try value("https_proxy", "HTTPS_PROXY").map { try HTTPProxy(url: $0) } ?? all,
            http: try value("http_proxy").map { try HTTPProxy(url: $0) } ?? all,
            bypass: bypass,
            bypassesLoopback: true
        )
    }

    /// The proxy a request to `host` (connected at `address`, which an address override may
    /// set) goes through, or `nil` for a direct connection.
    func proxy(isSecure: Bool, host: String, address: @autoclosure () -> String) -> HTTPProxy? {
        guard let proxy = isSecure ? https : http else { return nil }
        let target = ServerHost(host)
        if bypassesLoopback, target.isLoopback || ServerHost(address()).isLoopback { return nil }
        for entry in bypass {
            if entry == "*" { return nil }
            if entry.contains("/") {
                if Self.range(entry, contains: target) || Self.range(entry, contains: ServerHost(address())) { return nil }
                continue
            }
            let pattern = ServerHost(entry.hasPrefix(".") ? String(entry.dropFirst()) : entry)
            // An address matches itself only; a name matches itself and its subdomains.
            if pattern.isIPAddress || target.isIPAddress {
                if pattern == target { return nil }
            } else if target.name == pattern.name || target.name.hasSuffix("." + pattern.name) {
                return nil
            }
        }
        return proxy
    }

    /// Whether `host` is an address inside the range `entry` (`10.0.0.0/8`, `fd00::/8`).
    private static func range(_ entry: String, contains host: ServerHost) -> Bool {
        let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let bits = Int(parts[1]), let address = host.addressBytes,
            let network = ServerHost(String(parts[0])).addressBytes, network.count == address.count,
            (0...network.count * 8).contains(bits)
        else { return false }
        for index in 0..<network.count {
            let covered = min(8, max(0, bits - index * 8))
            let mask: UInt8 = covered == 0 ? 0 : ~UInt8(0) << (8 - covered)
            if network[index] & mask != address[index] & mask { return false }
        }
        return true
    }
}
