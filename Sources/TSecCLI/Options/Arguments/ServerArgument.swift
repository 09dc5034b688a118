import ArgumentParser
import Foundation
import TransportSecurity

/// A server named on the command line: `HOST:PORT`, `[IPv6]:PORT`, or an `https://` URL (its
/// host and port, 443 by default; the path is ignored), as `fetch-chain` and `inspect` take it.
struct ServerArgument: Equatable {
    /// The host name or address, without brackets.
    let host: String
    /// The TCP port.
    let port: Int

    /// Reads `text`, or says what is wrong with it and what to write instead.
    init(_ text: String) throws(ValidationError) {
        let (host, port) = try Self.hostAndPort(of: text)
        // A URL's host arrives percent-decoded: `localhost%00.example.com` would be looked up as
        // `localhost`.
        if let problem = ServerHost(host).nameProblem { throw ValidationError("'\(text)': its host \(problem)") }
        self.host = host
        self.port = port
    }

    private static func hostAndPort(of text: String) throws(ValidationError) -> (host: String, port: Int) {
        if text.contains("://") {
            guard let url = URL(string: text), url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty else {
                throw ValidationError("'\(text)' is not HOST:PORT or an https:// URL with a host")
            }
            let port = url.port ?? 443
            guard (1...65_535).contains(port) else { throw ValidationError("'\(text)': the port \(port) is not between 1 and 65535") }
            return (host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host, port)
        }
        guard !text.contains("/") else { throw ValidationError("'\(text)' is not HOST:PORT or an https:// URL") }
        guard let colon = text.lastIndex(of: ":"), !text.hasSuffix("]") else {
            throw ValidationError("'\(text)' has no port: write HOST:PORT (\(text.isEmpty ? "example.com" : text):443 for HTTPS)")
        }
        let portText = text[text.index(after: colon)...]
        guard let port = Int(portText), (1...65_535).contains(port) else {
            throw ValidationError("'\(text)': the port '\(portText)' is not a number between 1 and 65535")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("'\(text)' has no host: write HOST:PORT") }
        return (host, port)
    }
}
