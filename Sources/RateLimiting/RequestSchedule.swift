/// One server's schedule under a rate limit: the generic cell rate algorithm (GCRA, the token
/// bucket told as times), with `theoreticalArrival` the moment the bucket would be full again.
/// Each request reserves the next turn: with `burst` turns in hand it goes at once, otherwise it
/// waits one interval after the turn before it, so that requests queue in order without a queue.
/// A pure state machine: the moment is given, so that it is tested without waiting.
package struct RequestSchedule: Sendable {
    /// When the bucket is full again (a request made then or later goes at once, with the whole
    /// burst in hand).
    private(set) var theoreticalArrival: ContinuousClock.Instant

    package init(at now: ContinuousClock.Instant) {
        theoreticalArrival = now
    }

    /// The wait before a request made at `now` may go under `rate`; it is reserved unless it
    /// would be longer than `patience`, and then answered without reserving.
    package mutating func reserve(at now: ContinuousClock.Instant, rate: RequestRate, patience: Duration) -> (wait: Duration, reserved: Bool) {
        let arrival = max(theoreticalArrival, now)
        let wait = max(arrival - rate.burstTolerance - now, .zero)
        guard wait <= patience else { return (wait, false) }
        theoreticalArrival = arrival + rate.interval
        return (wait, true)
    }

    /// Gives back a turn reserved and not used (its request was cancelled while it waited).
    package mutating func giveBack(at now: ContinuousClock.Instant, rate: RequestRate) {
        theoreticalArrival = max(theoreticalArrival - rate.interval, now)
    }

    /// No request goes before `until` (the server asked for a pause), and from then on at the
    /// rate, without a burst, as a full bucket would be earned again only with time.
    package mutating func pause(until: ContinuousClock.Instant, rate: RequestRate) {
        theoreticalArrival = max(theoreticalArrival, until + rate.burstTolerance)
    }

    /// Whether the schedule holds nothing worth keeping at `now`: the whole burst is in hand.
    package func isIdle(at now: ContinuousClock.Instant) -> Bool { theoreticalArrival <= now }
}
