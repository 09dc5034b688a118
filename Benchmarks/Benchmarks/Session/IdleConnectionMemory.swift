import BenchSupport
import Foundation

/// The resident memory of this process, in bytes (`VmRSS` of `/proc/self/status`). The
/// benchmark's malloc interposer hides glibc's own heap statistics, so resident memory it is.
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes * 1024
}

/// Resident bytes per idle pooled connection: a client makes one warm-up request, then `count`
/// concurrent slow requests that each need a connection of their own; once they are answered,
/// the connections sit idle in the client's pool and the growth of resident memory is divided among the new
/// ones. The server runs in another process (``PythonTLSServer``), so only the client's memory
/// is counted.
func bytesPerIdleConnection(count: Int, warmUp: () async throws -> Void, slowRequest: @escaping @Sendable () async throws -> Void) async throws -> Int {
    try await warmUp()
    let before = residentBytes()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<count { group.addTask { try await slowRequest() } }
        try await group.waitForAll()
    }
    try await Task.sleep(for: .milliseconds(100))
    let after = residentBytes()
    return (after - before) / (count - 1)
}

/// A keep-alive HTTPS/1.1 server in a Python process (the standard library's `http.server` and
/// `ssl`): `/slow` answers after 300 ms, everything else at once.
final class PythonTLSServer: Sendable {
    let port: Int
    private let pid: Int32

    private static let script = """
        import http.server, ssl, sys, time
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_GET(self):
                if self.path.startswith("/slow"):
                    time.sleep(0.3)
                self.send_response(200)
                self.send_header("Content-Length", "5")
                self.end_headers()
                self.wfile.write(b"hello")
            def log_message(self, *arguments):
                pass
        class Server(http.server.ThreadingHTTPServer):
            request_queue_size = 1024
        server = Server(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    init(pki: BenchPKI) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tsec-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let chain = directory.appendingPathComponent("chain.pem")
        let key = directory.appendingPathComponent("key.pem")
        try pki.chain.pemBundle.write(to: chain, atomically: true, encoding: .utf8)
        try pki.chain[0].privateKeyPEM.write(to: key, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script, chain.path, key.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(process.processIdentifier, SIGKILL)
            throw PythonServerError(output: line)
        }
        self.port = port
        pid = process.processIdentifier
    }

    func stop() { kill(pid, SIGKILL) }
}

struct PythonServerError: Error, CustomStringConvertible {
    let output: String
    var description: String { "the Python TLS server did not start (python3 on PATH?): \(output)" }
}
