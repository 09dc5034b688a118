import Foundation
import Logging
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

/// A library logs where its caller asks it to, at debug and trace levels.
@Suite("Logging: the caller's logger, per session and per request")
struct SessionLoggingTests {
    let lab = try! TrustLab()

    @Test("by default a session logs nowhere: it makes no logger of its own")
    func defaultLogsNowhere() {
        #expect(SecureSessionConfiguration().logger.handler is SwiftLogNoOpLogHandler)
    }

    @Test("a request with a logger of its own logs its response and redirects there, with the caller's metadata; the session's logger gets the connection")
    func requestLogger() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let sessionLog = LogRecording()
        let requestLog = LogRecording()
        let session = lab.session(SecurityPolicy.default) { $0.logger = sessionLog.logger }
        defer { Task { await session.shutdown() } }

        var request = SecureRequest(url: server.url("/redirect?to=/hello"))
        var logger = requestLog.logger
        logger[metadataKey: "request-id"] = "r-42"
        request.logger = logger
        #expect(try await session.send(request).text == "hello")

        let responses = requestLog.entries.filter { $0.message == "response" }
        #expect(responses.count == 2, "the redirect and the answer: \(requestLog.text)")
        #expect(responses.allSatisfy { $0.metadata["request-id"] == "r-42" })
        #expect(requestLog.entries.contains { $0.message == "redirect" })
        #expect(!sessionLog.entries.contains { $0.message == "response" || $0.message == "redirect" }, "\(sessionLog.text)")
        #expect(sessionLog.entries.contains { $0.message == "connected" }, "\(sessionLog.text)")

        // Without its own logger, a request logs to the session's.
        #expect(try await session.get(server.url("/hello")).statusCode == 200)
        #expect(sessionLog.entries.contains { $0.message == "response" })
        // Ordinary traffic, a redirect included, logs nothing above debug.
        let loud = (sessionLog.entries + requestLog.entries).filter { $0.level > .debug }
        #expect(loud.isEmpty, "\(loud.map(\.text))")
    }
}
