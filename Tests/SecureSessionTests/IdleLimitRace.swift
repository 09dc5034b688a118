import Foundation
import SecureSession

/// POSTs sent just as a server's one-second idle limit runs out: for each of `steps`, a POST to
/// `url`, a wait of 1 s less half a millisecond plus `step` half milliseconds, then another POST.
/// Returns the second POSTs that failed (a POST lost with its connection cannot go again) and
/// how many of them went on a kept connection.
func postsAtOneSecondIdleLimit(_ session: SecureSession, to url: URL, steps: Int) async throws -> (failures: [String], reused: Int) {
    var failures: [String] = []
    var reused = 0
    for step in 0..<steps {
        _ = try await session.post(url, body: Data("before".utf8))
        try await Task.sleep(for: .microseconds(999_500 + step * 500))
        do {
            if try await session.post(url, body: Data("after".utf8)).timing.reusedConnection { reused += 1 }
        } catch {
            failures.append("\(step): \(error)")
        }
    }
    return (failures, reused)
}
