import NIOCore
import Testing
import TestServers
import TransportSecurityNIO

@Suite("Fetching a server's chain: failures in words")
struct PeerChainFetcherTests {
    @Test("a server that never completes the TCP handshake: 'no connection within' the limit, not swift-nio's wording")
    func silentServer() async throws {
        let silent = try SilentListener()
        defer { silent.stop() }
        await #expect {
            _ = try await PeerChainFetcher.fetch(host: "127.0.0.1", port: silent.port, timeout: .milliseconds(300))
        } throws: { error in
            "\(error)" == "cannot connect to 127.0.0.1:\(silent.port): no connection within 300 ms (the server does not answer)"
        }
    }
}
