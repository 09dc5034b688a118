import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server program run by a test on a free port of 127.0.0.1, killed when it is no longer
/// needed: the process behind ``OpenSSLServer`` and ``NGHTTPDServer``.
public final class ServerProcess: @unchecked Sendable {
    public let port: Int
    private let process: Process
    /// Signalled once the process has exited.
    private let exited: DispatchSemaphore
    private let stopping = NSLock()
    private var isStopped = false

    /// Starts the program with the arguments `arguments(port)` gives, on random ports until one
    /// works, and waits until it accepts connections.
    public init(_ name: String, arguments: (Int) -> [String]) throws {
        var lastError: (any Error)?
        for _ in 0..<20 {
            // Below Linux's ephemeral range (32768 up), where the servers in the test process
            // bind port 0; and not one a server answers on already (another test's, still
            // running), which readiness would take for this one's.
            let port = Int.random(in: 20_000..<32_768)
            if Self.canConnect(port: port) { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [name] + arguments(port)
            // Its output would be block-buffered in a pipe: readiness is judged by connecting.
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
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
                self.exited = exited
                return
            }
            Self.kill(process)
            lastError = ShellFailure(command: ([name] + arguments(port)).joined(separator: " "), status: process.terminationStatus, stderr: "did not start")
        }
        throw lastError ?? ShellFailure(command: name, status: -1, stderr: "did not start")
    }

    /// Stops the server. Foundation's `terminate`, `isRunning` and `waitUntilExit` are not
    /// reliable from a Swift concurrency thread here, so the process is killed by its pid.
    public func stop() {
        let first = stopping.withLock {
            defer { isStopped = true }
            return !isStopped
        }
        guard first else { return }
        Self.kill(process)
        // Gone when this returns: its port no longer answers (a connection made just after a
        // kill could still reach the dying process).
        _ = exited.wait(timeout: .now() + 5)
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
