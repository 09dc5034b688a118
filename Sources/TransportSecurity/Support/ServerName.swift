import Foundation

/// How a server is named where requests to it are counted or told apart (connections, circuits,
/// rate limits, errors): `https://host:port`.
package enum ServerName {
    /// `https://host:port` (`http://` when not secure; an IPv6 host in brackets).
    package static func of(isSecure: Bool, host: String, port: Int) -> String {
        "\(isSecure ? "https" : "http")://\(host.inAuthorityForm):\(port)"
    }

    /// The name of `url`'s server as connections, circuits and rate limits name it: its host as
    /// ``ServerHost`` reads it, its port or the scheme's (`wss`/`ws` as `https`/`http`).
    package static func of(_ url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let isSecure = scheme == "https" || scheme == "wss"
        return of(isSecure: isSecure, host: ServerHost(url.host ?? "").name, port: url.port ?? (isSecure ? 443 : 80))
    }

    /// `scheme://host:port` of an http or https `url` (as ``of(_:)``); `nil` for another scheme
    /// or a URL without a host: an origin whose responses or nonces are kept apart.
    package static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", let host = url.host, !host.isEmpty else { return nil }
        return of(url)
    }
}
