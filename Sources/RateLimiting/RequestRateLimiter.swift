import Foundation
import TransportSecurity

/// Keeps the requests to each server under a rate (``RequestRate``: a partner API's "100
/// requests per second") and, optionally, under a number at once ("at most 10 concurrent
/// requests"), so that its 429s are not provoked: a request beyond waits for its turn, in the
/// order requests came, before it is sent. Set it as `SecureSessionConfiguration.rateLimiter`;
/// one limiter may serve several sessions (and processes sharing a quota should each take their
/// share).
///
/// Each server (scheme, host and port) has its own schedule; ``hosts`` limits which servers are
/// held to it (every one when empty). Every exchange with the network takes a turn: each
/// redirect, answered challenge and retry its own; answers from the response cache take none.
/// A request whose turn would come after its time limit is not sent and fails at once with
/// `SecureSessionError.rateLimited`, rather than waiting to time out;
/// a cancelled request gives its turn back. With ``maximumConcurrentRequests``, a request
/// beyond that many under way to its server (over HTTP/1.1 and HTTP/2 alike, whatever their
/// connections) waits, in order, for one to end, within its time limit.
///
/// When a server answers `429 Too Many Requests` or `503 Service Unavailable` with a
/// `Retry-After` (or with rate-limit fields: `RateLimit: "default";r=0;t=10`), no request goes
/// to it before that time (at most ``maximumPause``), and then at the rate: the other requests
/// of the process stop hammering a server that asked for a pause, not only the one it answered
/// (``pausesWhenAsked``).
///
/// Safe to share between sessions and tasks; past 1,000 servers, those with nothing pending are
/// forgotten.
public final class RequestRateLimiter: @unchecked Sendable {
    /// The rate of each server; `nil`: no rate, only the concurrency limit and the pauses.
    public let rate: RequestRate?
    /// How many requests may be under way to each server at once; `nil`: any number.
    public var maximumConcurrentRequests: Int? { slots?.maximum }
    /// The servers held to the rate, by host; empty: every server.
    public let hosts: [HostPattern]
    /// Whether a 429 or 503 with `Retry-After` pauses its server's requests.
    public let pausesWhenAsked: Bool
    /// The longest pause a server's answer can impose, whatever it asks.
    public let maximumPause: Duration
    private let lock = NSLock()
    private var schedules: [String: RequestSchedule] = [:]
    private let slots: ConcurrentRequestSlots?
    /// The schedule's rate: the limiter's, or without one a rate no request waits for (pauses
    /// still hold them).
    private let scheduleRate: RequestRate

    /// A limiter holding each server of `hosts` (every server when empty) to `rate` and to
    /// `maximumConcurrentRequests` at once (at least 1; `nil`: any number); a server's 429 or 503
    /// with `Retry-After` pauses its requests up to `maximumPause` (5 minutes) unless
    /// `pausesWhenAsked` is `false`.
    public init(
        rate: RequestRate?,
        maximumConcurrentRequests: Int? = nil,
        hosts: [HostPattern] = [],
        pausesWhenAsked: Bool = true,
        maximumPause: Duration = .seconds(300)
    ) {
        self.rate = rate
        scheduleRate = rate ?? RequestRate(requests: 1_000_000, per: .milliseconds(1), burst: 1_000_000)
        slots = maximumConcurrentRequests.map(ConcurrentRequestSlots.init)
        self.hosts = hosts
        self.pausesWhenAsked = pausesWhenAsked
        self.maximumPause = min(max(maximumPause, .zero), .seconds(365 * 86_400))
    }

    /// Whether requests to `host` are held to the rate.
    public func applies(to host: String) -> Bool {
        hosts.isEmpty || hosts.contains { $0.matches(host) }
    }

    /// How long a request to `url`'s server made now would wait for its turn (zero: it would go
    /// at once); nothing is reserved.
    public func currentWait(for url: URL) -> Duration {
        let server = ServerName.of(url)
        let now = ContinuousClock.now
        return lock.withLock {
            var schedule = schedules[server] ?? RequestSchedule(at: now)
            return schedule.reserve(at: now, rate: scheduleRate, patience: .zero).wait
        }
    }

    /// The requests to `url`'s server under way and waiting for a slot under
    /// ``maximumConcurrentRequests`` (both 0 without the limit).
    public func concurrency(for url: URL) -> (underWay: Int, waiting: Int) {
        guard let slots else { return (0, 0) }
        let (inUse, waiting) = slots.count(ServerName.of(url))
        return (inUse, waiting)
    }

    /// Reserves the turn of a request to `server` made now, unless it would wait longer than
    /// `patience`; answers the wait.
    package func reserve(_ server: String, patience: Duration) -> (wait: Duration, reserved: Bool) {
        let now = ContinuousClock.now
        return lock.withLock {
            var schedule = schedules[server] ?? RequestSchedule(at: now)
            let reservation = schedule.reserve(at: now, rate: scheduleRate, patience: patience)
            schedules[server] = schedule
            forgetIdleSchedules(at: now)
            return reservation
        }
    }

    /// Gives back a turn reserved for `server` and not used.
    package func giveBack(_ server: String) {
        let now = ContinuousClock.now
        lock.withLock {
            guard var schedule = schedules[server] else { return }
            schedule.giveBack(at: now, rate: scheduleRate)
            schedules[server] = schedule.isIdle(at: now) ? nil : schedule
        }
    }

    /// Holds `server`'s requests for `duration` (at most ``maximumPause``) from now.
    package func pause(_ server: String, for duration: Duration) {
        let now = ContinuousClock.now
        lock.withLock {
            var schedule = schedules[server] ?? RequestSchedule(at: now)
            schedule.pause(until: now + min(max(duration, .zero), maximumPause), rate: scheduleRate)
            schedules[server] = schedule
        }
    }

    /// Takes one of `server`'s slots under ``maximumConcurrentRequests`` (at once without the
    /// limit), waiting within `deadline`; answers whether one was taken (to give back).
    package func takeSlot(_ server: String, deadline: some WaitBound) async throws -> Bool {
        guard let slots else { return false }
        try await slots.take(server, deadline: deadline)
        return true
    }

    /// Gives back a slot taken.
    package func giveBackSlot(_ server: String) {
        slots?.giveBack(server)
    }

    /// Keeps the table small: past 1,000 servers, those with the whole burst in hand go.
    private func forgetIdleSchedules(at now: ContinuousClock.Instant) {
        guard schedules.count > 1_000 else { return }
        schedules = schedules.filter { !$0.value.isIdle(at: now) }
    }
}
