/// How long servers that do not say so keep an idle HTTP/1.1 connection open, as the session saw
/// it: a connection the server closed while it waited in the pool tells how long it had been idle
/// (uvicorn closes after 5 s, gunicorn after 2 s, HAProxy and load balancers after what they are
/// set to, none of them sending `Keep-Alive: timeout=N`).
///
/// The server's later connections are given up ``KeepAliveHint/safetyMargin`` before that, as for
/// a server that says its limit: a request written as the server closes is lost with the
/// connection, and one that is not idempotent (a POST) cannot simply go again. What was seen is
/// forgotten after ``keptFor`` (a server that once closed early, restarting, is not held to it
/// for long) and bounded as ``BoundedMemory`` is.
final class ObservedIdleLimits: Sendable {
    /// How long an observation holds.
    static let keptFor: Duration = .seconds(3_600)

    private struct Observation: Sendable {
        let idleFor: Duration
        let seen: ContinuousClock.Instant
    }

    private let memory = BoundedMemory<HostAndPort, Observation>()

    /// Notes that `server` closed a connection that had been idle for `idleFor`.
    func noteClosedWhileIdle(_ server: HostAndPort, after idleFor: Duration, now: ContinuousClock.Instant = .now) {
        memory.remember(Observation(idleFor: idleFor, seen: now), for: server)
    }

    /// How long a connection to `server` may wait idle for reuse: ``KeepAliveHint/safetyMargin``
    /// less than the server was last seen to keep one, zero or less meaning not at all; `nil` when
    /// nothing was seen within ``keptFor``.
    func clientIdleLimit(for server: HostAndPort, now: ContinuousClock.Instant = .now) -> Duration? {
        guard let observation = memory.value(for: server), now - observation.seen < Self.keptFor else { return nil }
        return observation.idleFor - KeepAliveHint.safetyMargin
    }
}
