import Foundation

/// Which attempt of a request is being made or judged.
public struct RequestAttempt: Sendable, Hashable {
    /// 1 for the first attempt, 2 for the first retry, and so on.
    public let number: Int
    /// The time since the first attempt began (waits between attempts included).
    public let elapsed: Duration
    /// The same for every attempt of one request, and for no other request: what an
    /// ``IdempotencyKeys`` interceptor makes the request's key from, so that its retries carry
    /// the key of its first attempt.
    public let requestID: UUID

    /// Creates an attempt of the request `requestID` (a new one unless given).
    public init(number: Int, elapsed: Duration, requestID: UUID = UUID()) {
        self.number = number
        self.elapsed = elapsed
        self.requestID = requestID
    }

    /// The retries made before this attempt (`number - 1`).
    public var retriesSoFar: Int { number - 1 }
}
