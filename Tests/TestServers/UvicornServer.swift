import Foundation
import PKIBuilder

/// uvicorn (Debian's `python3-uvicorn`), the ASGI server FastAPI applications run on, on
/// 127.0.0.1 over TLS: an independent HTTP/1.1 peer that closes a keep-alive connection idle for
/// `--timeout-keep-alive` seconds without announcing it (no `Keep-Alive: timeout=N`). Its
/// application answers every request `METHOD PATH BYTES`, the body's length.
public final class UvicornServer: @unchecked Sendable {
    private let server: ServerProcess
    private let folder: String

    public var port: Int { server.port }

    /// `https://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(port)\(path)")! }

    /// Starts uvicorn and waits until it accepts connections.
    /// - Parameters:
    ///   - chain: The server's chain, leaf first (its key with it).
    ///   - keepAliveTimeout: Seconds an idle connection is kept (uvicorn's default is 5).
    public init(chain: [IssuedCertificate], keepAliveTimeout: Int) throws {
        let folder = NSTemporaryDirectory() + "uvicorn-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        self.folder = folder
        try chain.pemBundle.write(toFile: folder + "/chain.pem", atomically: true, encoding: .utf8)
        try chain[0].privateKeyPEM.write(toFile: folder + "/key.pem", atomically: true, encoding: .utf8)
        let application = """
            async def app(scope, receive, send):
                if scope["type"] != "http":
                    return
                length = 0
                while True:
                    message = await receive()
                    length += len(message.get("body", b""))
                    if not message.get("more_body"):
                        break
                answer = f"{scope['method']} {scope['path']} {length}".encode()
                await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
                await send({"type": "http.response.body", "body": answer})

            """
        try application.write(toFile: folder + "/echo.py", atomically: true, encoding: .utf8)
        // Debian's Python, where python3-uvicorn is installed (a user's PATH may put another first).
        server = try ServerProcess("/usr/bin/python3") { port in
            [
                "-m", "uvicorn", "echo:app", "--app-dir", folder, "--host", "127.0.0.1", "--port", "\(port)",
                "--ssl-certfile", folder + "/chain.pem", "--ssl-keyfile", folder + "/key.pem",
                "--timeout-keep-alive", "\(keepAliveTimeout)", "--log-level", "warning",
            ]
        }
    }

    /// Stops uvicorn and removes its files.
    public func stop() {
        server.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
