import Foundation
import PKIBuilder

/// A TLS server on 127.0.0.1 written in Python, one of the scripts of `Tests/Fixtures` (their
/// listener in `tls_listener.py`), for
/// behaviour swift-nio servers refuse to show: an independent peer.
///
/// - `hostile-http2`: HTTP/2 (with Debian's python3-h2, installed by `.ci/run`) answering each
///   path with a response a correct server never sends: DATA longer or shorter than its
///   `content-length`, header fields HTTP/2 forbids, no `:status` or two, `101`, a header block
///   too large, a reset mid-body, a push though push is off, a `PING` flood.
/// - `truncating-tls`: HTTP/1.1 ending connections without TLS's `close_notify`.
/// - `correct-http2`: HTTP/2 answered correctly, for what swift-nio-http2's own server cannot
///   show: the flow-control windows the client opened, large response heads.
/// - `oauth-server`: oauthlib's token endpoint and resource server.
/// - `signing-gateway`: an API signing its answers (RFC 9421) behind a gateway that adds
///   unsigned ones.
///
/// Each script's file lists its paths.
public final class PythonTLSServer: @unchecked Sendable {
    private let server: ServerProcess
    private let folder: String

    public var port: Int { server.port }

    /// `https://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(port)\(path)")! }

    /// Starts `Tests/Fixtures/FIXTURE/server.py` with `chain` (leaf first, its key with it) and
    /// waits until it accepts connections; `arguments` follow the port on its command line.
    public init(fixture: String, chain: [IssuedCertificate], arguments: [String] = []) throws {
        folder = NSTemporaryDirectory() + "\(fixture)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let chainFile = folder + "/chain.pem"
        let keyFile = folder + "/key.pem"
        try chain.pemBundle.write(toFile: chainFile, atomically: true, encoding: .utf8)
        try chain[0].privateKeyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(fixture)/server.py").path
        // Debian's interpreter, which has python3-h2, whatever python3 comes first in PATH.
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        server = try ServerProcess(python) { port in [script, chainFile, keyFile, "\(port)"] + arguments }
    }

    /// Stops the server and removes its files.
    public func stop() {
        server.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
