import Foundation
import NIOCore

/// Keep-alive connections per ``ConnectionKey``, at most a fixed number open per key; requests
/// beyond it wait for a connection to come back. An HTTP/1.1 connection serves one request at a
/// time; an HTTP/2 connection, once made, is shared by every request to its key (each on a
/// stream) until it goes away, and holds one of the key's connection slots meanwhile.
///
/// Leasing an idle connection or a free slot takes a lock and nothing else (no actor hop); only
/// a request that must wait for a slot suspends, bounded by its ``Deadline``. An idle
/// connection closes after the idle timeout, by a timer of its own event loop.
final class ConnectionPool: @unchecked Sendable {
    /// What a request may do once it has a slot.
    enum Grant {
        /// Reuse this idle connection.
        case idle(HTTP1Connection)
        /// Open a stream on this HTTP/2 connection.
        case shared(HTTP2Connection)
        /// Open a new connection; `probing` when its HTTP version decides whether the requests
        /// waiting behind it share it.
        case connect(probing: Bool)
    }

    private let maximumPerKey: Int
    private let idleTimeout: Duration
    private let lock = NSLock()
    private var idle: [ConnectionKey: [HTTP1Connection]] = [:]
    private var leased: [ConnectionKey: Int] = [:]
    /// The HTTP/1.1 connections requests are using now, closed by ``shutdown()``.
    private var inUse: [ObjectIdentifier: HTTP1Connection] = [:]
    /// The HTTP/2 connections of each key, shared by its requests.
    private var shared: [ConnectionKey: [HTTP2Connection]] = [:]
    /// Whether TLS connections may turn out HTTP/2 (ALPN offers `h2`).
    private let multiplexes: Bool
    /// Keys whose first connection is being made and whose HTTP version is not known yet: the
    /// other requests wait for it rather than open connections of their own, which an HTTP/2
    /// server would make redundant.
    private var probing: Set<ConnectionKey> = []
    /// Keys whose server answered in HTTP/1.1: their connections are opened in parallel.
    private var speaksHTTP1: Set<ConnectionKey> = []
    private var waiters: [ConnectionKey: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)]] = [:]
    private var nextWaiterID: UInt64 = 0
    private var isShutDown = false

    init(maximumPerKey: Int, idleTimeout: Duration, multiplexes: Bool) {
        self.maximumPerKey = max(1, maximumPerKey)
        self.idleTimeout = idleTimeout
        self.multiplexes = multiplexes
    }

    /// A usable connection for `key`: an idle or shared one (`reused` is then `true`), or a new
    /// one from `connect`. Waiting for a free slot ends with the deadline.
    func lease(
        _ key: ConnectionKey,
        deadline: Deadline,
        connect: @Sendable () async throws -> any HTTPConnection
    ) async throws -> (connection: any HTTPConnection, reused: Bool) {
        while true {
            switch try grant(key) {
            case .idle(let connection)?:
                return (connection, true)
            case .shared(let connection)?:
                return (connection, true)
            case .connect(let probing)?:
                let connection: any HTTPConnection
                do {
                    connection = try await connect()
                } catch {
                    if probing { abandonProbe(key) }
                    freeSlot(key)
                    throw error
                }
                try admit(connection, for: key, endingProbe: probing)
                return (connection, false)
            case nil:
                try await waitForSlot(key, deadline: deadline)
            }
        }
    }

    /// Takes a slot of `key` if one is free: with an idle connection when there is one.
    private func grant(_ key: ConnectionKey) throws -> Grant? {
        var stale: [HTTP1Connection] = []
        defer { for connection in stale { connection.close() } }
        var goneAway: [HTTP2Connection] = []
        defer { for connection in goneAway { retire(connection) } }
        return try lock.withLock {
            guard !isShutDown else { throw SecureSessionError.sessionShutDown }
            for connection in shared[key] ?? [] {
                if connection.isUsable { return .shared(connection) }
                goneAway.append(connection)
            }
            guard !mustWait(key) else { return nil }
            leased[key, default: 0] += 1
            while let connection = idle[key]?.popLast() {
                connection.markInUse()
                if connection.isUsable {
                    inUse[ObjectIdentifier(connection)] = connection
                    return .idle(connection)
                }
                stale.append(connection)
            }
            let probes = multiplexes && key.isSecure && !key.isHTTP1Only && !speaksHTTP1.contains(key)
            if probes { probing.insert(key) }
            return .connect(probing: probes)
        }
    }

    /// Takes a new connection into the pool: an HTTP/2 one is shared from now on, an HTTP/1.1
    /// one is in use by the request that made it. A probe ends in the same step, so that no
    /// request woken by its end finds neither a probe nor the connection; the requests waiting
    /// behind it then share the connection, or take slots of their own for HTTP/1.1.
    /// - Throws: ``SecureSessionError/sessionShutDown`` (the connection is closed) when the
    ///   session was shut down meanwhile.
    private func admit(_ connection: any HTTPConnection, for key: ConnectionKey, endingProbe: Bool) throws {
        let multiplexed = connection as? HTTP2Connection
        let accepted: Bool = lock.withLock {
            if endingProbe {
                probing.remove(key)
                if connection is HTTP1Connection { rememberSpeaksHTTP1(key) }
            }
            guard !isShutDown else { return false }
            if let multiplexed {
                shared[key, default: []].append(multiplexed)
            } else if let exclusive = connection as? HTTP1Connection {
                inUse[ObjectIdentifier(exclusive)] = exclusive
            }
            return true
        }
        guard accepted else {
            connection.close()
            freeSlot(key)
            throw SecureSessionError.sessionShutDown
        }
        if let multiplexed {
            // Its slot is freed when it goes away.
            multiplexed.closeFuture.whenComplete { [weak self, weak multiplexed] _ in
                if let self, let multiplexed { self.retire(multiplexed) }
            }
        }
        if endingProbe || multiplexed != nil { wakeAllWaiters(key) }
    }

    /// Notes that `key`'s server answered in HTTP/1.1, forgetting servers not in use when too
    /// many are noted. Called with the lock held.
    private func rememberSpeaksHTTP1(_ key: ConnectionKey) {
        speaksHTTP1.insert(key)
        if speaksHTTP1.count > Self.rememberedHTTP1Servers {
            speaksHTTP1 = speaksHTTP1.filter { $0 == key || isInUse($0) }
        }
    }

    /// Whether a request for `key` with no HTTP/2 connection to share must wait: every slot is
    /// taken, or the key's first connection is still finding out its HTTP version. Called with
    /// the lock held.
    private func mustWait(_ key: ConnectionKey) -> Bool {
        leased[key, default: 0] >= maximumPerKey || probing.contains(key)
    }

    /// The first connection of `key` failed: the requests waiting behind it try for themselves.
    private func abandonProbe(_ key: ConnectionKey) {
        lock.withLock { _ = probing.remove(key) }
        wakeAllWaiters(key)
    }

    /// Suspends until a slot of `key` frees (then the caller asks again), or until the deadline
    /// ends the request (timeout or cancellation), which takes the waiter out of the queue. The
    /// wait runs in the request's own task: a wake-up is never delivered to a wait nobody
    /// listens to any more, so no freed slot goes unused. A wait ended after it was woken
    /// passes the wake-up on to the next waiter.
    private func waitForSlot(_ key: ConnectionKey, deadline: Deadline) async throws {
        let id: UInt64 = lock.withLock {
            nextWaiterID += 1
            return nextWaiterID
        }
        try await deadline.interrupting(with: { [weak self] in self?.removeWaiter(id, of: key, because: deadline) }) {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let enqueued: Bool = lock.withLock {
                    guard deadline.ending == nil, !isShutDown, mustWait(key), !(shared[key] ?? []).contains(where: \.isUsable) else {
                        return false
                    }
                    waiters[key, default: []].append((id, continuation))
                    return true
                }
                if !enqueued { continuation.resume() }
            }
        }
        if let ending = deadline.ending {
            wakeNextWaiter(key)
            throw ending
        }
    }

    /// Takes a waiter out of the queue and ends its wait with the deadline's reason; a waiter
    /// already woken is left to run.
    private func removeWaiter(_ id: UInt64, of key: ConnectionKey, because deadline: Deadline) {
        let removed: CheckedContinuation<Void, any Error>? = lock.withLock {
            guard let index = waiters[key]?.firstIndex(where: { $0.id == id }) else { return nil }
            defer { forgetIfUnused(key) }
            return waiters[key]?.remove(at: index).continuation
        }
        removed?.resume(throwing: deadline.ending ?? deadline.timeout)
    }

    /// Gives a connection back after a request. An HTTP/2 connection stays shared whatever
    /// became of the request's stream, unless it can take no more requests or was the request's
    /// own.
    func release(_ connection: any HTTPConnection, reusable: Bool) {
        guard let connection = connection as? HTTP1Connection else {
            guard let multiplexed = connection as? HTTP2Connection else { return }
            // A connection of one request's own (its challenge handler's) serves nobody else.
            if multiplexed.key.isSingleUse { multiplexed.close() }
            if !multiplexed.isUsable { retire(multiplexed) }
            return
        }
        if reusable, connection.isUsable {
            // Marked idle before another request can lease it from the list.
            connection.markIdle(expiringAfter: idleTimeout) { [weak self, weak connection] in
                if let self, let connection { self.expire(connection) }
            }
        }
        let kept: Bool = lock.withLock {
            inUse[ObjectIdentifier(connection)] = nil
            guard reusable, connection.isUsable, !isShutDown else { return false }
            idle[connection.key, default: []].append(connection)
            return true
        }
        if !kept { connection.close() }
        freeSlot(connection.key)
    }

    /// Takes an HTTP/2 connection that went away (or can take no new stream) out of the pool and
    /// frees its slot, once; its streams in flight run on.
    private func retire(_ connection: HTTP2Connection) {
        let removed: Bool = lock.withLock {
            guard let index = shared[connection.key]?.firstIndex(where: { $0 === connection }) else { return false }
            shared[connection.key]?.remove(at: index)
            return true
        }
        if removed { freeSlot(connection.key) }
    }

    /// Closes `connection` if it is still idle (it was not leased again meanwhile).
    private func expire(_ connection: HTTP1Connection) {
        let removed: Bool = lock.withLock {
            guard let index = idle[connection.key]?.firstIndex(where: { $0 === connection }) else { return false }
            idle[connection.key]?.remove(at: index)
            forgetIfUnused(connection.key)
            return true
        }
        if removed { connection.close() }
    }

    /// What the pool holds now, per server (the keys of one server, with different identities,
    /// policies or proxies, counted together), in the order of the servers' names; nothing once
    /// shut down.
    func status() -> [PoolStatus] {
        var servers: [String: PoolStatus] = [:]
        lock.withLock {
            // Shut down, the pool holds nothing (connections going away still hold slots).
            guard !isShutDown else { return }
            func add(_ key: ConnectionKey, _ change: (inout PoolStatus) -> Void) {
                let server = key.description
                change(&servers[server, default: PoolStatus(server: server)])
            }
            var inUseByKey: [ConnectionKey: Int] = [:]
            for connection in inUse.values { inUseByKey[connection.key, default: 0] += 1 }
            for (key, connections) in idle where !connections.isEmpty { add(key) { $0.idle += connections.count } }
            for (key, count) in inUseByKey { add(key) { $0.inUse += count } }
            for (key, connections) in shared where !connections.isEmpty { add(key) { $0.multiplexed += connections.count } }
            for (key, queue) in waiters where !queue.isEmpty { add(key) { $0.waitingRequests += queue.count } }
            for (key, slots) in leased {
                let connecting = slots - (inUseByKey[key] ?? 0) - (shared[key]?.count ?? 0)
                if connecting > 0 { add(key) { $0.connecting += connecting } }
            }
        }
        return servers.values.sorted { $0.server < $1.server }
    }

    /// Whether ``shutdown()`` has run.
    var hasShutDown: Bool { lock.withLock { isShutDown } }

    /// Closes every connection, idle or in use (the requests using them fail), wakes every
    /// waiting request (they fail too) and refuses new leases.
    func shutdown() {
        let (connections, woken): ([any HTTPConnection], [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)]) = lock.withLock {
            isShutDown = true
            defer {
                idle.removeAll()
                inUse.removeAll()
                shared.removeAll()
                waiters.removeAll()
            }
            let open: [any HTTPConnection] = Array(idle.values.joined()) + Array(inUse.values) + Array(shared.values.joined())
            return (open, Array(waiters.values.joined()))
        }
        for connection in connections { connection.close() }
        for waiter in woken { waiter.continuation.resume() }
    }

    private func freeSlot(_ key: ConnectionKey) {
        lock.withLock {
            leased[key, default: 1] -= 1
            forgetIfUnused(key)
        }
        wakeNextWaiter(key)
    }

    /// Drops what the pool keeps about `key` once it holds nothing of it: no slot leased, no
    /// idle or shared connection, no waiter, no probe. A key holds its evaluator, and so a
    /// request's own challenge handler and whatever that captures; a session that talks to
    /// ever new hosts, or gives requests handlers of their own, would otherwise keep them all.
    /// Whether the server speaks HTTP/1.1 is remembered a while longer (see
    /// ``rememberedHTTP1Servers``), but never for a key of one request's own. Called with the
    /// lock held.
    private func forgetIfUnused(_ key: ConnectionKey) {
        guard !isInUse(key) else { return }
        leased[key] = nil
        idle[key] = nil
        shared[key] = nil
        waiters[key] = nil
        if key.isSingleUse { speaksHTTP1.remove(key) }
    }

    /// Whether anything of `key` is in the pool: a slot leased, an idle or shared connection, a
    /// waiter or a probe. Called with the lock held.
    private func isInUse(_ key: ConnectionKey) -> Bool {
        leased[key, default: 0] > 0 || !(idle[key] ?? []).isEmpty || !(shared[key] ?? []).isEmpty
            || !(waiters[key] ?? []).isEmpty || probing.contains(key)
    }

    /// How many keys the pool keeps anything about (for tests of its memory).
    var rememberedKeyCount: Int {
        lock.withLock {
            Set(leased.keys).union(idle.keys).union(shared.keys).union(waiters.keys).union(speaksHTTP1).union(probing).count
        }
    }

    /// The most servers remembered as speaking HTTP/1.1 (their connections then open in
    /// parallel, without waiting for the first one's ALPN answer) beyond those in use.
    static let rememberedHTTP1Servers = 256

    /// Wakes every request waiting for a slot of `key` (an HTTP/2 connection can serve them all).
    private func wakeAllWaiters(_ key: ConnectionKey) {
        let woken = lock.withLock { waiters.removeValue(forKey: key) ?? [] }
        for waiter in woken { waiter.continuation.resume() }
    }

    private func wakeNextWaiter(_ key: ConnectionKey) {
        let next: CheckedContinuation<Void, any Error>? = lock.withLock {
            guard var queue = waiters[key], !queue.isEmpty else { return nil }
            let first = queue.removeFirst().continuation
            waiters[key] = queue
            forgetIfUnused(key)
            return first
        }
        next?.resume()
    }
}
