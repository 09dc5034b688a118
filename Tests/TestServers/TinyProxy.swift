import Foundation

/// `tinyproxy` (Debian's package) on 127.0.0.1: an independent HTTP proxy, which opens
/// `CONNECT` tunnels to any port and forwards absolute-form requests. With `user` and
/// `password` it requires Basic proxy authentication.
public final class TinyProxy: @unchecked Sendable {
    private let server: ServerProcess
    private let folder: String

    public var port: Int { server.port }

    /// Starts the proxy and waits until it accepts connections.
    public init(user: String? = nil, password: String? = nil) throws {
        let folder = NSTemporaryDirectory() + "tinyproxy-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        self.folder = folder
        server = try ServerProcess("tinyproxy") { port in
            var settings = [
                "Port \(port)", "Listen 127.0.0.1", "Allow 127.0.0.1", "Timeout 60", "MaxClients 50",
                "LogLevel Critical", "PidFile \"\(folder)/tinyproxy.pid\"",
            ]
            if let user, let password { settings.append("BasicAuth \(user) \(password)") }
            let file = "\(folder)/tinyproxy-\(port).conf"
            _ = FileManager.default.createFile(atPath: file, contents: Data((settings.joined(separator: "\n") + "\n").utf8))
            return ["-d", "-c", file]
        }
    }

    /// The proxy's URL, with credentials when given.
    public func url(user: String? = nil, password: String? = nil) -> String {
        let credentials = user.map { "\($0):\(password ?? "")@" } ?? ""
        return "http://\(credentials)127.0.0.1:\(port)"
    }

    /// Stops the proxy.
    public func stop() {
        server.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
