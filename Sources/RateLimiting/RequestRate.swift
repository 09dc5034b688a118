/// How many requests a ``RequestRateLimiter`` lets go to one server: on average one every
/// ``interval``, and up to ``burst`` at once after a quiet time.
public struct RequestRate: Sendable, Hashable, CustomStringConvertible {
    /// The time between two requests, on average (at least a nanosecond, at most a year).
    public let interval: Duration
    /// How many requests may go at once after a quiet time (at least 1, at most a million).
    public let burst: Int

    /// `requests` per `period` (`RequestRate(requests: 100, per: .seconds(1))`, a partner API's
    /// "100 requests per second"), up to `burst` at once; `nil` (the default): as many at once as
    /// the period allows, `requests`. Numbers below 1 count as 1; the limits above hold whatever
    /// is given, so that no schedule overflows a clock.
    public init(requests: Int, per period: Duration, burst: Int? = nil) {
        let requests = max(requests, 1)
        interval = min(max(period / requests, .nanoseconds(1)), .seconds(365 * 86_400))
        self.burst = min(max(burst ?? requests, 1), 1_000_000)
    }

    /// How far ahead of its turn a request may go: the time the rest of the burst takes.
    package var burstTolerance: Duration { interval * (burst - 1) }

    /// `one request every 0.01 s, up to 100 at once`.
    public var description: String {
        "one request every \(interval.formattedSeconds), up to \(burst) at once"
    }
}
