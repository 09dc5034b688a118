import Foundation
import PKIBuilder
import SecureSession
import Testing
import TransportSecurity

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
        #expect(error.map { if case .sessionShutDown? = $0.sessionFailureReason { true } else { false } } == true, "\(String(describing: error))")
    }
    #expect(clock.now - begun < .seconds(10))
}
