import Foundation
import PKIBuilder

/// `openssl s_server -www` on 127.0.0.1: an independent TLS peer. It answers `GET /` with a status
/// page over HTTP/1.0. With `verifyClientsWith`, it requires a client certificate from that CA
/// (`-Verify`).
public final class OpenSSLServer: @unchecked Sendable {
    private let server: ServerProcess
    /// The folder ``init(chain:options:)`` wrote the files to, removed by ``stop()``.
    private var folder: String?

    public var port: Int { server.port }

    /// Starts the server and waits until it accepts connections.
    /// - Parameters:
    ///   - certificateFile: The PEM leaf.
    ///   - keyFile: PEM key of the leaf.
    ///   - chainFile: PEM intermediates sent after the leaf (`-cert_chain`).
    ///   - verifyClientsWith: A PEM CA file; clients must present a certificate it issued.
    ///   - options: More `s_server` options (protocol versions, cipher suites).
    public init(
        certificateFile: String,
        keyFile: String,
        chainFile: String? = nil,
        verifyClientsWith clientCAFile: String? = nil,
        options: [String] = []
    ) throws {
        server = try ServerProcess("openssl") { port in
            var arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificateFile, "-key", keyFile, "-www", "-naccept", "50"]
            if let chainFile { arguments += ["-cert_chain", chainFile] }
            if let clientCAFile { arguments += ["-Verify", "2", "-CAfile", clientCAFile] }
            // s_server reads commands from stdin; it gets none.
            return arguments + options
        }
    }

    /// Starts the server presenting `chain` (leaf first, its key with it), its files written to a
    /// temporary folder that ``stop()`` removes.
    public convenience init(chain: [IssuedCertificate], options: [String] = []) throws {
        let folder = NSTemporaryDirectory() + "s_server-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try chain[0].pemString.write(toFile: folder + "/leaf.pem", atomically: true, encoding: .utf8)
        try chain[0].privateKeyPEM.write(toFile: folder + "/leaf.key", atomically: true, encoding: .utf8)
        // s_server refuses an empty chain file: a lone certificate goes without one.
        let chainFile: String? = chain.count > 1 ? folder + "/chain.pem" : nil
        if let chainFile { try chain.dropFirst().map { $0 }.pemBundle.write(toFile: chainFile, atomically: true, encoding: .utf8) }
        try self.init(certificateFile: folder + "/leaf.pem", keyFile: folder + "/leaf.key", chainFile: chainFile, options: options)
        self.folder = folder
    }

    /// `https://127.0.0.1:PORT/`: the status page.
    public var url: URL { URL(string: "https://127.0.0.1:\(port)/")! }

    /// Stops the server (and removes the files it was given by ``init(chain:options:)``).
    public func stop() {
        server.stop()
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }
}
