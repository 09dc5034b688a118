import Foundation
import Testing

@testable import SecureSession

/// The closing of a request's connections when its deadline ends it: a connection leased just
/// after the deadline passed must not escape (it would hold the request forever on a server that
/// never answers; found by running the suite in parallel).
@Suite("Closing a request's connections")
struct ConnectionCloserTests {
    final class FakeConnection: ClosableConnection, @unchecked Sendable {
        private let lock = NSLock()
        private var closes = 0
        var closeCount: Int { lock.withLock { closes } }
        func close() { lock.withLock { closes += 1 } }
    }

    @Test("closeAll closes the tracked connections, not the untracked ones")
    func closesTracked() {
        let closer = ConnectionCloser()
        let kept = FakeConnection()
        let done = FakeConnection()
        closer.track(kept)
        closer.track(done)
        closer.untrack(done)
        closer.closeAll()
        #expect(kept.closeCount == 1)
        #expect(done.closeCount == 0)
    }

    @Test("a connection tracked after closeAll is closed at once")
    func latecomerIsClosed() {
        let closer = ConnectionCloser()
        closer.closeAll()
        let late = FakeConnection()
        closer.track(late)
        #expect(late.closeCount == 1)
        closer.closeAll()
        #expect(late.closeCount == 1, "closed once, not tracked afterwards")
    }

    @Test("tracking racing closeAll never leaves a connection open")
    func racing() async {
        for _ in 0..<200 {
            let closer = ConnectionCloser()
            let connection = FakeConnection()
            await withTaskGroup(of: Void.self) { group in
                group.addTask { closer.track(connection) }
                group.addTask { closer.closeAll() }
            }
            #expect(connection.closeCount == 1)
        }
    }
}
