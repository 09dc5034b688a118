import Foundation
import PKIBuilder

/// nginx (Debian's package) on 127.0.0.1 over TLS: an independent HTTP/1.1 and HTTP/2 peer
/// that ends each connection after a number of requests, as every nginx does
/// (`keepalive_requests`, 1,000 by default): over HTTP/1.1 with `Connection: close` on the last
/// answer, over HTTP/2 with a graceful `GOAWAY` naming the last stream it processed, the streams
/// above it left unprocessed.
///
/// Every path answers `200` with `METHOD n=N` (its query's `n`) whatever the method, and the
/// access log (``processed()``) says which connection processed which request; but
/// `/static/NAME` serves the file NAME put by ``serve(_:contents:modified:)`` as nginx serves
/// files (`ETag`, `Last-Modified`, `304`s to conditional requests), and `/expiring/NAME` the same
/// with `expires 1h` (`Cache-Control: max-age=3600`); ``staticResponses()`` lists what those
/// answered.
public final class NginxServer: @unchecked Sendable {
    private let server: ServerProcess
    private let folder: String

    public var port: Int { server.port }

    /// `https://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(port)\(path)")! }

    /// Starts nginx and waits until it accepts connections.
    /// - Parameters:
    ///   - chain: The server's chain, leaf first (its key with it).
    ///   - requestsPerConnection: nginx's `keepalive_requests`.
    public init(chain: [IssuedCertificate], requestsPerConnection: Int) throws {
        let folder = NSTemporaryDirectory() + "nginx-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/logs", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/htdocs", withIntermediateDirectories: true)
        self.folder = folder
        try chain.pemBundle.write(toFile: folder + "/chain.pem", atomically: true, encoding: .utf8)
        try chain[0].privateKeyPEM.write(toFile: folder + "/key.pem", atomically: true, encoding: .utf8)
        // Debian installs it in /usr/sbin, which a user's PATH may lack.
        let program = FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx"
        server = try ServerProcess(program) { port in
            // One process in the foreground (killed by the test), everything in the folder.
            let settings = """
                daemon off;
                master_process off;
                worker_processes 1;
                pid \(folder)/nginx.pid;
                error_log \(folder)/logs/error.log;
                events { worker_connections 512; }
                http {
                    client_body_temp_path \(folder)/body;
                    proxy_temp_path \(folder)/proxy;
                    fastcgi_temp_path \(folder)/fastcgi;
                    uwsgi_temp_path \(folder)/uwsgi;
                    scgi_temp_path \(folder)/scgi;
                    log_format processed '$connection $connection_requests $server_protocol $request_method $arg_n';
                    log_format files '$uri $status';
                    access_log \(folder)/logs/access.log processed;
                    keepalive_requests \(requestsPerConnection);
                    server {
                        listen 127.0.0.1:\(port) ssl http2;
                        ssl_certificate \(folder)/chain.pem;
                        ssl_certificate_key \(folder)/key.pem;
                        location / {
                            default_type text/plain;
                            return 200 "$request_method n=$arg_n";
                        }
                        location /static/ {
                            alias \(folder)/htdocs/;
                            default_type text/plain;
                            access_log \(folder)/logs/files.log files;
                        }
                        location /expiring/ {
                            alias \(folder)/htdocs/;
                            default_type text/plain;
                            expires 1h;
                            access_log \(folder)/logs/files.log files;
                        }
                    }
                }

                """
            let file = "\(folder)/nginx-\(port).conf"
            _ = FileManager.default.createFile(atPath: file, contents: Data(settings.utf8))
            // -e: the error log before the configuration is read (the default is /var/log/nginx).
            return ["-p", folder, "-e", "\(folder)/logs/error.log", "-c", file]
        }
    }

    /// One request as nginx's access log has it.
    public struct ProcessedRequest: Sendable, Hashable {
        /// nginx's serial number of the connection.
        public let connection: Int
        /// Which request of its connection it was (1 for the first).
        public let requestOnConnection: Int
        /// `HTTP/1.1` or `HTTP/2.0`.
        public let httpProtocol: String
        public let method: String
        /// The query's `n`.
        public let n: String
    }

    /// The requests nginx processed so far, in the order it logged them.
    public func processed() throws -> [ProcessedRequest] {
        let log = try String(contentsOfFile: folder + "/logs/access.log", encoding: .utf8)
        return log.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 5, let connection = Int(fields[0]), let number = Int(fields[1]) else { return nil }
            return ProcessedRequest(connection: connection, requestOnConnection: number, httpProtocol: fields[2], method: fields[3], n: fields[4])
        }
    }

    /// Puts the file `name` under `/static/` and `/expiring/`, last modified at `modified`.
    public func serve(_ name: String, contents: String, modified: Date = Date()) throws {
        let path = folder + "/htdocs/" + name
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: path)
    }

    /// What `/static/` and `/expiring/` answered so far, in order: the path and the status.
    public func staticResponses() throws -> [(path: String, status: Int)] {
        guard let log = try? String(contentsOfFile: folder + "/logs/files.log", encoding: .utf8) else { return [] }
        return log.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 2, let status = Int(fields[1]) else { return nil }
            return (String(fields[0]), status)
        }
    }

    /// Stops nginx and removes its files.
    public func stop() {
        server.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
