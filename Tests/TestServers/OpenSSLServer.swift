import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `openssl s_server -www` on 127.0.0.1: an independent TLS peer. It answers `GET /` with a status
/// page over HTTP/1.0. With `verifyClientsWith`, it requires a client certificate from that CA
/// (`-Verify`).
public final class OpenSSLServer: @unchecked Sendable {
    public let port: Int
    private let process: Process

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
        var lastError: (any Error)?
        for _ in 0..<20 {
            let port = Int.random(in: 20_000..<60_000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            var arguments = ["openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificateFile, "-key", keyFile, "-www", "-naccept", "50"]
            if let chainFile { arguments += ["-cert_chain", chainFile] }
            if let clientCAFile { arguments += ["-Verify", "2", "-CAfile", clientCAFile] }
            arguments += options
            process.arguments = arguments
            // Its output is block-buffered in a pipe: readiness is judged by connecting instead.
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            // s_server reads commands from stdin; it gets none.
            process.standardInput = FileHandle.nullDevice
            // The exit is learnt from terminationHandler, not from isRunning (see shell()).
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            do {
                try process.run()
            } catch {
                lastError = error
                continue
            }
            if Self.waitUntilListening(port: port, exited: exited, timeout: 5) {
                self.port = port
                self.process = process
                return
            }
            Self.kill(process)
            lastError = ShellFailure(command: arguments.joined(separator: " "), status: process.terminationStatus, stderr: "did not start")
        }
        throw lastError ?? ShellFailure(command: "openssl s_server", status: -1, stderr: "did not start")
    }

    /// Stops the server. Foundation's `terminate`, `isRunning` and `waitUntilExit` are not
    /// reliable from a Swift concurrency thread here, so the process is killed by its pid.
    public func stop() {
        Self.kill(process)
    }

    private static func kill(_ process: Process) {
        let pid = process.processIdentifier
        guard pid > 0 else { return }
        _ = Glibc.kill(pid, SIGKILL)
    }

    deinit { stop() }

    /// Connects until the server listens; gives up when it exits or after `timeout`.
    private static func waitUntilListening(port: Int, exited: DispatchSemaphore, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if canConnect(port: port) { return true }
            // Waits 50 ms, or less if the server exits meanwhile.
            if exited.wait(timeout: .now() + .milliseconds(50)) == .success { return false }
        }
        return false
    }

    private static func canConnect(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result == 0
    }
}
