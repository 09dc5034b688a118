import Testing
import TestServers

/// Waits (up to 3 s) until `server` has `expected` connections open; records an issue naming
/// `after` when it does not. The server sees a connection close when the client closes it.
func expectOpenConnections(_ expected: Int, on server: HTTPTestServer, after: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    for _ in 0..<300 {
        if server.connections.open == expected { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("after \(after): \(server.connections.open) connection(s) open, expected \(expected)", sourceLocation: sourceLocation)
}
