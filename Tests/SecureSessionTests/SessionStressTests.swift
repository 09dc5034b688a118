import Foundation
import PKIBuilder
import SecureSession
import Testing
import TestServers
import TransportSecurity

/// Many requests at once on one session, ended in every way a request ends, in an order drawn
/// at random with a fixed seed: what one request's ending does to a connection must never reach
/// another request, leave a request waiting, or keep the pool from serving the next one.
@Suite("Many requests at once, ended every way")
struct SessionStressTests {
    let lab = try! TrustLab()

    /// How a request of the mix ends.
    enum Ending: CaseIterable {
        /// `/hello`, read whole.
        case answered
        /// `/delay/N`: the server waits up to 150 ms.
        case delayed
        /// `/never` with a 200 ms timeout.
        case timedOut
        /// `/never`, its task cancelled after up to 150 ms.
        case cancelled
        /// `/endless` held in memory: over the session's body limit.
        case overLimit
        /// `/endless` read through ``SecureSession/bytes(for:)``: one part, then dropped.
        case droppedMidBody
        /// `/bytes/100000`, streamed part by part.
        case streamed
    }

    /// Runs one request of the mix; `nil` when it ended as `ending` says, else what happened.
    private static func run(_ ending: Ending, pause: Int, session: SecureSession, server: HTTPTestServer) async -> String? {
        func unexpected(_ result: Result<some Any, any Error>) -> String { "\(ending): \(result)" }
        switch ending {
        case .answered:
            let result = await Result(catching: { try await session.get(server.url("/hello")).text })
            return (try? result.get()) == "hello" ? nil : unexpected(result)
        case .delayed:
            let result = await Result(catching: { try await session.get(server.url("/delay/\(pause)")).statusCode })
            return (try? result.get()) == 200 ? nil : unexpected(result)
        case .timedOut:
            var request = SecureRequest(url: server.url("/never"))
            request.timeout = .milliseconds(200)
            let result = await Result(catching: { try await session.send(request) })
            guard case .failure(let failure) = result, failure.sessionFailureCode == .timeout else { return unexpected(result) }
            return nil
        case .cancelled:
            let request = Task { try await session.get(server.url("/never")) }
            try? await Task.sleep(for: .milliseconds(pause))
            request.cancel()
            let result = await request.result
            guard case .failure(let failure) = result, failure.sessionFailureCode == .cancelled else { return unexpected(result) }
            return nil
        case .overLimit:
            let result = await Result(catching: { try await session.get(server.url("/endless")) })
            guard case .failure(let failure) = result, failure.sessionFailureCode == .responseTooLarge else { return unexpected(result) }
            return nil
        case .droppedMidBody:
            let result = await Result(catching: { () -> Int in
                let (_, body) = try await session.bytes(for: SecureRequest(url: server.url("/endless")))
                var parts = body.makeAsyncIterator()
                return try await parts.next()?.count ?? 0
            })
            return ((try? result.get()) ?? 0) > 0 ? nil : unexpected(result)
        case .streamed:
            let received = ByteTally()
            let result = await Result(catching: { try await session.stream(SecureRequest(url: server.url("/bytes/100000"))) { received.add($0.count) } })
            return (try? result.get().statusCode) == 200 && received.total == 100_000 ? nil : unexpected(result)
        }
    }

    @Test(
        "160 requests at once, answered, delayed, timed out, cancelled, over the body limit, dropped mid-body or streamed in a seeded random order: each ends as it should and in time, the pool then serves a request, and shutdown leaves no connection open",
        arguments: [false, true]
    )
    func mixed(http2: Bool) async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: http2)
        defer { Task { await server.stop() } }
        let session = lab.session {
            $0.responses.maximumBodySize = 256 * 1024
            $0.connections.maximumPerHost = 4
        }
        var random = SplitMix64(seed: http2 ? 2 : 1)
        let plan = (0..<160).map { _ in (Ending.allCases.randomElement(using: &random)!, Int.random(in: 1...150, using: &random)) }
        let clock = ContinuousClock()
        let started = clock.now
        let mismatches = await withTaskGroup(of: String?.self) { group in
            for (ending, pause) in plan {
                group.addTask { await Self.run(ending, pause: pause, session: session, server: server) }
            }
            return await group.reduce(into: [String]()) { mismatches, mismatch in
                if let mismatch { mismatches.append(mismatch) }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of 160: \(mismatches.prefix(5))")
        #expect(clock.now - started < .seconds(20))
        #expect(try await session.get(server.url("/hello")).text == "hello")
        if http2 { #expect(server.connections.total == 1) }
        await session.shutdown()
        try await expectOpenConnections(0, on: server, after: "shutdown")
    }
}
