import ArgumentParser

/// A `--max-time SECONDS` value: checked to be a positive, finite number of seconds no larger than
/// ``maximumSeconds``, and turned into a `Duration` (whole milliseconds, rounded up).
enum TimeLimit {
    /// A day: longer limits are a typing mistake, and `nan`, `inf` or `1e300` must not reach the
    /// integer conversion.
    static let maximumSeconds: Double = 86_400

    /// Refuses a value that is not a positive, finite number of seconds up to a day.
    static func validate(_ seconds: Double, option: String = "--max-time") throws {
        guard seconds.isFinite, seconds > 0, seconds <= maximumSeconds else {
            throw ValidationError("\(option) must be a number of seconds above 0 and at most \(Int(maximumSeconds)) (a day), not \(seconds)")
        }
    }

    /// The validated `seconds` as a duration.
    static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int64((min(seconds, maximumSeconds) * 1000).rounded(.up)))
    }
}
