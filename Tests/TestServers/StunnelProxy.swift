import Foundation
import PKIBuilder

/// An HTTPS proxy on 127.0.0.1 made of two independent programs from Debian: `stunnel4`
/// terminating TLS with a given chain, in front of a ``TinyProxy`` (which opens `CONNECT`
/// tunnels and forwards absolute-form requests; with `user` and `password` it requires Basic
/// proxy authentication).
public final class StunnelProxy: @unchecked Sendable {
    private let proxy: TinyProxy
    private let server: ServerProcess
    private let folder: String

    public var port: Int { server.port }

    /// Starts the proxy, presenting `chain` (leaf first), and waits until it accepts connections.
    public init(chain: [IssuedCertificate], user: String? = nil, password: String? = nil) throws {
        let folder = NSTemporaryDirectory() + "stunnel-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        self.folder = folder
        _ = FileManager.default.createFile(atPath: "\(folder)/chain.pem", contents: Data(chain.pemBundle.utf8))
        _ = FileManager.default.createFile(atPath: "\(folder)/key.pem", contents: Data(try chain[0].privateKeyPEM.utf8), attributes: [.posixPermissions: 0o600])
        let proxy = try TinyProxy(user: user, password: password)
        self.proxy = proxy
        server = try ServerProcess("stunnel4") { port in
            let settings = [
                "foreground = yes", "pid =", "debug = 0",
                "[https-proxy]", "accept = 127.0.0.1:\(port)", "connect = 127.0.0.1:\(proxy.port)",
                "cert = \(folder)/chain.pem", "key = \(folder)/key.pem",
            ]
            let file = "\(folder)/stunnel-\(port).conf"
            _ = FileManager.default.createFile(atPath: file, contents: Data((settings.joined(separator: "\n") + "\n").utf8))
            return [file]
        }
    }

    /// The proxy's URL (`https://[user:password@]127.0.0.1:port`).
    public func url(user: String? = nil, password: String? = nil, host: String = "127.0.0.1") -> String {
        let credentials = user.map { "\($0):\(password ?? "")@" } ?? ""
        return "https://\(credentials)\(host):\(port)"
    }

    /// Stops both programs.
    public func stop() {
        server.stop()
        proxy.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
