import Foundation
import PKIBuilder

/// Apache httpd (Debian's `apache2`) on 127.0.0.1 over TLS 1.2: an independent peer that asks
/// for a client certificate in one location only (`SSLVerifyClient require` inside
/// `<Location /secure>`), as many partner and banking APIs do. Over HTTP/1.1 it asks by
/// renegotiating TLS when a request for that location arrives; over HTTP/2, which forbids
/// renegotiation, its mod_http2 resets the request's stream with `HTTP_1_1_REQUIRED`.
///
/// Every path echoes the request body (mod_reflector: over HTTP/1.1; Apache's HTTP/2 echoes
/// nothing) with an `X-Client` header naming the client certificate's common name (empty
/// without one); the access log (``served()``) says which connection served which request.
public final class ApacheServer: @unchecked Sendable {
    private let server: ServerProcess
    private let folder: String

    public var port: Int { server.port }

    /// `https://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(port)\(path)")! }

    /// Starts Apache and waits until it accepts connections.
    /// - Parameters:
    ///   - chain: The server's chain, leaf first (its key with it).
    ///   - clientCA: The CA whose client certificates `/secure` accepts. Apache checks them
    ///     against the real clock: issue them from a `PKI` on today's date.
    ///   - http2: Whether ALPN offers `h2` besides `http/1.1` (`Protocols h2 http/1.1`).
    ///   - keepAliveTimeout: Apache's `KeepAliveTimeout` in seconds (5 unless given), which it
    ///     announces in `Keep-Alive: timeout=N`.
    ///   - tls13: Whether TLS 1.3 is offered besides TLS 1.2: `/secure` then asks a TLS 1.3 client
    ///     for its certificate by post-handshake authentication, not by renegotiation.
    public init(chain: [IssuedCertificate], clientCA: IssuedCertificate, http2: Bool, keepAliveTimeout: Int = 5, tls13: Bool = false) throws {
        let folder = NSTemporaryDirectory() + "apache-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/logs", withIntermediateDirectories: true)
        self.folder = folder
        try chain[0].pemString.write(toFile: folder + "/leaf.pem", atomically: true, encoding: .utf8)
        try chain.dropFirst().map { $0 }.pemBundle.write(toFile: folder + "/chain.pem", atomically: true, encoding: .utf8)
        try chain[0].privateKeyPEM.write(toFile: folder + "/key.pem", atomically: true, encoding: .utf8)
        try clientCA.pemString.write(toFile: folder + "/client-ca.pem", atomically: true, encoding: .utf8)
        let modules = "/usr/lib/apache2/modules"
        // Debian installs it in /usr/sbin, which a user's PATH may lack.
        let program = FileManager.default.isExecutableFile(atPath: "/usr/sbin/apache2") ? "/usr/sbin/apache2" : "apache2"
        server = try ServerProcess(program) { port in
            let settings = """
                ServerRoot \(folder)
                DefaultRuntimeDir \(folder)
                PidFile \(folder)/httpd.pid
                ServerName localhost
                KeepAliveTimeout \(keepAliveTimeout)
                Listen 127.0.0.1:\(port)
                LoadModule mpm_event_module \(modules)/mod_mpm_event.so
                LoadModule authz_core_module \(modules)/mod_authz_core.so
                LoadModule ssl_module \(modules)/mod_ssl.so
                LoadModule socache_shmcb_module \(modules)/mod_socache_shmcb.so
                LoadModule http2_module \(modules)/mod_http2.so
                LoadModule headers_module \(modules)/mod_headers.so
                LoadModule reflector_module \(modules)/mod_reflector.so
                ErrorLog \(folder)/logs/error.log
                LogFormat "%{remote}p %H %m %U %>s %{SSL_CLIENT_S_DN_CN}x" served
                CustomLog \(folder)/logs/access.log served
                SSLSessionCache shmcb:\(folder)/session-cache(512000)
                <Location />
                    SetHandler reflector
                    Header always set X-Client "expr=%{SSL_CLIENT_S_DN_CN}"
                </Location>
                <VirtualHost 127.0.0.1:\(port)>
                    SSLEngine on
                    Protocols \(http2 ? "h2 " : "")http/1.1
                    SSLProtocol TLSv1.2\(tls13 ? " +TLSv1.3" : "")
                    SSLCertificateFile \(folder)/leaf.pem
                    SSLCertificateChainFile \(folder)/chain.pem
                    SSLCertificateKeyFile \(folder)/key.pem
                    SSLCACertificateFile \(folder)/client-ca.pem
                    <Location /secure>
                        SSLVerifyClient require
                        SSLVerifyDepth 1
                    </Location>
                </VirtualHost>

                """
            let file = "\(folder)/httpd-\(port).conf"
            _ = FileManager.default.createFile(atPath: file, contents: Data(settings.utf8))
            // -X: one process in the foreground, no children left behind when the test kills it.
            return ["-f", file, "-X"]
        }
    }

    /// One request as Apache's access log has it.
    public struct ServedRequest: Sendable, Hashable {
        /// The client's port: which connection served the request.
        public let clientPort: Int
        /// `HTTP/1.1` or `HTTP/2.0`.
        public let httpProtocol: String
        public let method: String
        public let path: String
        public let status: Int
        /// The common name of the client certificate the connection presented, if any.
        public let clientName: String?
    }

    /// The requests Apache served so far, in the order it logged them (just after answering).
    public func served() throws -> [ServedRequest] {
        let log = (try? String(contentsOfFile: folder + "/logs/access.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 6, let port = Int(fields[0]), let status = Int(fields[4]) else { return nil }
            return ServedRequest(
                clientPort: port, httpProtocol: fields[1], method: fields[2], path: fields[3], status: status,
                clientName: fields[5] == "-" ? nil : fields[5]
            )
        }
    }

    /// The requests served once Apache has logged `count` of them (it logs just after
    /// answering), or after two seconds, whatever it has logged then.
    public func served(count: Int) async throws -> [ServedRequest] {
        try await served { $0.count >= count }
    }

    /// The requests served once what Apache has logged satisfies `isComplete` (a response the
    /// client has read may not be logged yet), or after two seconds, whatever it has logged then.
    public func served(until isComplete: ([ServedRequest]) -> Bool) async throws -> [ServedRequest] {
        var served = try served()
        for _ in 0..<100 where !isComplete(served) {
            try await Task.sleep(for: .milliseconds(20))
            served = try self.served()
        }
        return served
    }

    /// Stops Apache and removes its files.
    public func stop() {
        server.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
