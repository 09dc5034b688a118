import Foundation

/// A wall clock a test sets and moves by hand (for decision caches, pin-update schedules and
/// anything else that takes a clock).
public final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    /// A clock showing `start`.
    public init(_ start: Date) { current = start }

    /// The time it shows.
    public var now: Date {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }

    /// Moves it on by `seconds`.
    public func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}
