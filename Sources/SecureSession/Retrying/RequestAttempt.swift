/// Which attempt of a request is being made or judged.
public struct RequestAttempt: Sendable, Hashable {
    /// 1 for the first attempt, 2 for the first retry, and so on.
    public let number: Int
    /// The time since the first attempt began (waits between attempts included).
    public let elapsed: Duration

    /// Creates an attempt.
    public init(number: Int, elapsed: Duration) {
        self.number = number
        self.elapsed = elapsed
    }

    /// The retries made before this attempt (`number - 1`).
    public var retriesSoFar: Int { number - 1 }
}
