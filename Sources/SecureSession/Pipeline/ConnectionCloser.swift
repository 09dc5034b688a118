import Foundation

/// Something a request's deadline can close: an HTTP/1.1 connection, or the request's HTTP/2
/// stream.
protocol ClosableConnection: AnyObject, Sendable {
    /// Closes the connection; whatever waits on it ends.
    func close()
}

/// The connections a request is using, closed when its deadline ends it (timeout or
/// cancellation).
///
/// The closing is a latch: a connection tracked after ``closeAll()`` ran is closed at once. A
/// request may lease a connection just as its deadline passes; without the latch that
/// connection would escape the closing and a server that never answers would hold the request
/// forever.
final class ConnectionCloser: @unchecked Sendable {
    private let lock = NSLock()
    private var connections: [ObjectIdentifier: any ClosableConnection] = [:]
    private var hasClosedAll = false

    /// Watches `connection` for the rest of the request; closes it now if the request has
    /// already been ended.
    func track(_ connection: any ClosableConnection) {
        let closeNow: Bool = lock.withLock {
            guard !hasClosedAll else { return true }
            connections[ObjectIdentifier(connection)] = connection
            return false
        }
        if closeNow { connection.close() }
    }

    /// Stops watching `connection` (its exchange is over).
    func untrack(_ connection: any ClosableConnection) {
        lock.withLock { connections[ObjectIdentifier(connection)] = nil }
    }

    /// Closes every tracked connection, and every one tracked from now on.
    @Sendable func closeAll() {
        let tracked: [any ClosableConnection] = lock.withLock {
            hasClosedAll = true
            defer { connections.removeAll() }
            return Array(connections.values)
        }
        for connection in tracked { connection.close() }
    }
}
