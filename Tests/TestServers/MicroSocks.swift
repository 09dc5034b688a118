import Foundation

/// microsocks, an independent SOCKS5 server (Debian's `microsocks`), on 127.0.0.1 and a random port.
public final class MicroSocks: Sendable {
    private let server: ServerProcess

    public var port: Int { server.port }

    /// Starts the proxy and waits until it accepts connections; with `user`, only for that user
    /// and `password` (RFC 1929).
    public init(user: String? = nil, password: String = "") throws {
        let credentials = user.map { ["-u", $0, "-P", password] } ?? []
        server = try ServerProcess("microsocks") { port in ["-i", "127.0.0.1", "-p", String(port)] + credentials }
    }

    /// Stops the proxy.
    public func stop() { server.stop() }
}
