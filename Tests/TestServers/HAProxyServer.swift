import Foundation
import PKIBuilder

/// HAProxy (Debian's `haproxy`) on 127.0.0.1 terminating TLS, HTTP/2 and HTTP/1.1 by ALPN: an
/// independent peer with an HTTP/2 implementation of its own. It answers every request itself
/// (`http-request return`), `200` with `METHOD PATH`, at once: an upload is answered before its
/// body has arrived, and over HTTP/2 its stream is then reset with `CANCEL`.
public final class HAProxyServer: @unchecked Sendable {
    private let server: ServerProcess
    private let folder: String

    public var port: Int { server.port }

    /// `https://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(port)\(path)")! }

    /// Starts HAProxy and waits until it accepts connections.
    /// - Parameter chain: The server's chain, leaf first (its key with it).
    public init(chain: [IssuedCertificate]) throws {
        let folder = NSTemporaryDirectory() + "haproxy-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        self.folder = folder
        // HAProxy reads the chain and the key from one file.
        try (chain.pemBundle + (try chain[0].privateKeyPEM) + "\n").write(toFile: folder + "/server.pem", atomically: true, encoding: .utf8)
        // Debian installs it in /usr/sbin, which a user's PATH may lack.
        let program = FileManager.default.isExecutableFile(atPath: "/usr/sbin/haproxy") ? "/usr/sbin/haproxy" : "haproxy"
        server = try ServerProcess(program) { port in
            let settings = """
                defaults
                    mode http
                    timeout client 30s
                    timeout server 30s
                    timeout connect 5s
                frontend answering
                    bind 127.0.0.1:\(port) ssl crt \(folder)/server.pem alpn h2,http/1.1
                    http-request return status 200 content-type text/plain lf-string "%[method] %[path]"

                """
            let file = "\(folder)/haproxy-\(port).cfg"
            _ = FileManager.default.createFile(atPath: file, contents: Data(settings.utf8))
            // -db: in the foreground, one process, killed by the test.
            return ["-f", file, "-db"]
        }
    }

    /// Stops HAProxy and removes its files.
    public func stop() {
        server.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
