import Foundation
import PKIBuilder
import SecureSession
import Testing
import TransportSecurity

extension TrustLab {
    /// A session trusting the lab's system roots at the lab's time, with no decision cache and
    /// short timeouts (5 s to connect, 10 s per request), changed by `configure`.
    func session(
        _ evaluator: any ServerTrustEvaluating = SecurityPolicy.default,
        configure: (inout SecureSessionConfiguration) -> Void = { _ in }
    ) -> SecureSession {
        var configuration = SecureSessionConfiguration(
            trustEvaluator: evaluator,
            systemStore: TrustStore(systemRoots.map(\.der), origin: "lab system store"),
            evaluationTime: pki.now,
            decisionCache: nil,
            connectTimeout: .seconds(5),
            requestTimeout: .seconds(10)
        )
        configure(&configuration)
        return SecureSession(configuration: configuration)
    }
}

/// Sends three requests to `url` (a route that never answers), waits until `started` says the
/// server has them, shuts `session` down and expects each request to end at once with
/// `sessionShutDown`.
func expectShutdownEndsRequests(to url: URL, on session: SecureSession, once started: @Sendable () -> Bool) async throws {
    let clock = ContinuousClock()
    let begun = clock.now
    let requests = (0..<3).map { _ in
        Task { () -> (any Error)? in
            do {
                _ = try await session.get(url)
                return nil
            } catch {
                return error
            }
        }
    }
    while !started() { try await Task.sleep(for: .milliseconds(10)) }
    try await Task.sleep(for: .milliseconds(100))
    await session.shutdown()
    for request in requests {
        let error = await request.value
        #expect(error.map { if case SecureSessionError.sessionShutDown = $0 { true } else { false } } == true, "\(String(describing: error))")
    }
    #expect(clock.now - begun < .seconds(10))
}
