import Foundation

/// A wait that grows by a factor after each failure up to a ceiling, shared by the retry policy
/// and the pin-set updater; each spreads it with a jitter of its own. Whatever the inputs (a
/// factor below 1, NaN, a ceiling of centuries), the wait is a number of seconds a clock can
/// wait for.
struct ExponentialBackoff {
    let initial: Duration
    let multiplier: Double
    let maximum: Duration

    /// `initial` × `multiplier`^`steps` seconds, at most `maximum` (a factor below 1, or NaN,
    /// counts as 1).
    func seconds(afterSteps steps: Int) -> Double {
        let ceiling = maximum.inMilliseconds / 1_000
        let factor = multiplier.isNaN ? 1 : max(multiplier, 1)
        let grown = initial.inMilliseconds / 1_000 * pow(factor, Double(max(steps, 0)))
        return max(grown.isFinite ? min(grown, ceiling) : ceiling, 0)
    }

    /// `value` within `range`, NaN as 0: what a jitter or random factor from outside is used as.
    static func clamp(_ value: Double, to range: ClosedRange<Double>) -> Double {
        value.isNaN ? 0 : min(range.upperBound, max(range.lowerBound, value))
    }

    /// `seconds` as a duration of whole milliseconds, between zero and `ceiling` seconds.
    static func duration(seconds: Double, atMost ceiling: Double) -> Duration {
        .milliseconds(Int64(clamp((seconds * 1_000).rounded(), to: 0...(ceiling * 1_000))))
    }
}
