import Foundation
@testable import RateLimiting
import Testing

@testable import SecureSession

/// `RequestSchedule` (the rate limiter's generic cell rate algorithm) and `RequestRate`, at
/// moments the test chooses.
@Suite("Request rate schedule")
struct RequestScheduleTests {
    static let start = ContinuousClock.now
    /// 10 per second, 3 at once.
    static let rate = RequestRate(requests: 10, per: .seconds(1), burst: 3)

    private static func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    @Test("a burst goes at once, then one request per interval, in the order they came; after a quiet time the burst is back")
    func burstThenSpaced() {
        var schedule = RequestSchedule(at: Self.start)
        let waits = (0..<6).map { _ in schedule.reserve(at: Self.start, rate: Self.rate, patience: .seconds(60)) }
        #expect(waits.map(\.wait) == [0, 0, 0, 100, 200, 300].map { Duration.milliseconds($0) })
        #expect(waits.allSatisfy { $0.reserved })
        #expect(!schedule.isIdle(at: Self.at(500)))
        #expect(schedule.isIdle(at: Self.at(600)))
        // At 450 ms the reserved turns have come and a burst allowance is earned back: at once...
        #expect(schedule.reserve(at: Self.at(450), rate: Self.rate, patience: .seconds(60)).wait == .milliseconds(0))
        // ...and after a second of quiet, three go at once again.
        let later = (0..<4).map { _ in schedule.reserve(at: Self.at(2_000), rate: Self.rate, patience: .seconds(60)).wait }
        #expect(later == [0, 0, 0, 100].map { Duration.milliseconds($0) })
    }

    @Test("a turn beyond the patience is answered but not reserved; a turn given back goes to the next request")
    func patienceAndGivingBack() {
        var schedule = RequestSchedule(at: Self.start)
        for _ in 0..<3 { _ = schedule.reserve(at: Self.start, rate: Self.rate, patience: .zero) }
        let impatient = schedule.reserve(at: Self.start, rate: Self.rate, patience: .milliseconds(50))
        #expect(impatient.wait == .milliseconds(100) && !impatient.reserved)
        let patient = schedule.reserve(at: Self.start, rate: Self.rate, patience: .milliseconds(100))
        #expect(patient.wait == .milliseconds(100) && patient.reserved)
        #expect(schedule.reserve(at: Self.start, rate: Self.rate, patience: .seconds(1)).wait == .milliseconds(200))
        schedule.giveBack(at: Self.start, rate: Self.rate)
        #expect(schedule.reserve(at: Self.start, rate: Self.rate, patience: .seconds(1)).wait == .milliseconds(200))
    }

    @Test("a pause holds every request until its end, then lets them go one interval apart, without a burst")
    func pause() {
        var schedule = RequestSchedule(at: Self.start)
        schedule.pause(until: Self.at(1_000), rate: Self.rate)
        let waits = (0..<3).map { _ in schedule.reserve(at: Self.start, rate: Self.rate, patience: .seconds(60)).wait }
        #expect(waits == [1_000, 1_100, 1_200].map { Duration.milliseconds($0) })
        // A shorter pause asked later does not shorten the schedule.
        schedule.pause(until: Self.at(10), rate: Self.rate)
        #expect(schedule.reserve(at: Self.start, rate: Self.rate, patience: .seconds(60)).wait == .milliseconds(1_300))
    }

    @Test("rates: the interval from the period, a burst of a period's requests by default, limits whatever is given, the description")
    func rates() {
        let perSecond = RequestRate(requests: 100, per: .seconds(1))
        #expect(perSecond.interval == .milliseconds(10) && perSecond.burst == 100)
        #expect("\(perSecond)" == "one request every 0.01 s, up to 100 at once")
        #expect("\(RequestRate(requests: 2, per: .seconds(3), burst: 1))" == "one request every 1.5 s, up to 1 at once")
        let careless = RequestRate(requests: -4, per: .seconds(-1), burst: 0)
        #expect(careless.interval == .nanoseconds(1) && careless.burst == 1)
        let huge = RequestRate(requests: 1, per: .seconds(Int64.max), burst: Int.max)
        #expect(huge.interval == .seconds(365 * 86_400) && huge.burst == 1_000_000)
        var schedule = RequestSchedule(at: Self.start)
        #expect(schedule.reserve(at: Self.start, rate: huge, patience: .zero).reserved)
        #expect(Duration.milliseconds(12_345).formattedSeconds == "12.345 s")
        #expect(Duration.milliseconds(999_999).formattedSeconds == "999.999 s")
        #expect(Duration.microseconds(2_999_700).formattedSeconds == "3 s")
        #expect(Duration.milliseconds(250).formattedSeconds == "0.25 s")
    }
}
