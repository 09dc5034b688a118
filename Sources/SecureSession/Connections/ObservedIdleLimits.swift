/// How long servers that do not say so keep an idle HTTP/1.1 connection open, as the session saw
/// it: a connection the server closed while it waited in the pool tells how long it had been idle
/// (uvicorn closes after 5 s, gunicorn after 2 s, HAProxy and load balancers after what they are
/// set to, none of them sending `Keep-Alive: timeout=N`).
///
/// The server's later connections are given up ``KeepAliveHint/safetyMargin`` before that, as for
/// a server that says its limit: a request written as the server closes is lost with the
/// connection, and one that is not idempotent (a POST) cannot simply go again.
///
/// A limit is believed once two closes at least ``sameEvent`` apart agree on it (within a tenth,
/// or a quarter of a second): a server restarting closes every idle connection at once, each
/// after whatever time it had waited, and one such event must not leave the server's connections
/// unused for the hour a limit is kept (``keptFor``). Bounded as ``BoundedMemory`` is.
final class ObservedIdleLimits: Sendable {
    /// How long a limit holds once believed, and a first observation waits for a second.
    static let keptFor: Duration = .seconds(3_600)
    /// Closes nearer each other than this are one event (a restart, or connections released
    /// together): they confirm nothing.
    static let sameEvent: Duration = .seconds(1)

    private struct Knowledge: Sendable {
        /// The limit two closes agreed on, and when it was last seen again.
        var believed: (idleFor: Duration, seen: ContinuousClock.Instant)?
        /// A close no other has agreed with yet.
        var candidate: (idleFor: Duration, seen: ContinuousClock.Instant)?
    }

    private let memory = BoundedMemory<HostAndPort, Knowledge>()

    /// Notes that `server` closed a connection that had been idle for `idleFor`.
    func noteClosedWhileIdle(_ server: HostAndPort, after idleFor: Duration, now: ContinuousClock.Instant = .now) {
        var knowledge = memory.value(for: server) ?? Knowledge()
        if let believed = knowledge.believed, now - believed.seen >= Self.keptFor { knowledge.believed = nil }
        if let candidate = knowledge.candidate, now - candidate.seen >= Self.keptFor { knowledge.candidate = nil }
        if let candidate = knowledge.candidate {
            // Part of the event that made the candidate: it confirms nothing.
            guard now - candidate.seen >= Self.sameEvent else { return }
            if Self.agree(candidate.idleFor, idleFor) {
                knowledge.believed = (min(candidate.idleFor, idleFor), now)
                knowledge.candidate = nil
            } else {
                knowledge.candidate = (idleFor, now)
            }
        } else if let believed = knowledge.believed, Self.agree(believed.idleFor, idleFor) {
            knowledge.believed = (min(believed.idleFor, idleFor), now)
        } else {
            knowledge.candidate = (idleFor, now)
        }
        memory.remember(knowledge, for: server)
    }

    /// How long a connection to `server` may wait idle for reuse: ``KeepAliveHint/safetyMargin``
    /// less than the limit believed for it, zero or less meaning not at all; `nil` when none is
    /// believed.
    func clientIdleLimit(for server: HostAndPort, now: ContinuousClock.Instant = .now) -> Duration? {
        guard let believed = memory.value(for: server)?.believed, now - believed.seen < Self.keptFor else { return nil }
        return believed.idleFor - KeepAliveHint.safetyMargin
    }

    /// Whether two idle times are one limit: within a tenth of the longer, or a quarter second.
    private static func agree(_ first: Duration, _ second: Duration) -> Bool {
        let difference = first > second ? first - second : second - first
        return difference <= max(.milliseconds(250), max(first, second) / 10)
    }
}
