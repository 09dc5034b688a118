import Foundation

/// One server's circuit as a ``CircuitBreaker`` holds it at one moment.
public struct CircuitStatus: Sendable, Hashable, CustomStringConvertible {
    /// Whether requests go.
    public enum State: Sendable, Hashable {
        /// Requests go.
        case closed
        /// Requests fail at once until the date.
        case open(until: Date)
        /// The next request goes as a trial (or one is under way), whose outcome closes or
        /// reopens the circuit.
        case halfOpen
    }

    /// The server: `https://host:port` or `http://host:port`.
    public let server: String
    /// Whether requests go.
    public let state: State
    /// Failures in a row: since the last success while closed; those that opened it otherwise.
    public let consecutiveFailures: Int
    /// The last failure counted, in words.
    public let lastFailure: String?

    /// Creates a status (for tests of code that reads one).
    public init(server: String, state: State, consecutiveFailures: Int, lastFailure: String?) {
        self.server = server
        self.state = state
        self.consecutiveFailures = consecutiveFailures
        self.lastFailure = lastFailure
    }

    /// `https://api.example:443: open until 2026-11-27T10:15:30Z after 5 failures in a row (last: connection failed: …)`.
    public var description: String {
        let failures = consecutiveFailures == 1 ? "1 failure" : "\(consecutiveFailures) failures in a row"
        let last = lastFailure.map { " (last: \($0))" } ?? ""
        switch state {
        case .closed where consecutiveFailures == 0: return "\(server): closed"
        case .closed: return "\(server): closed, \(failures)\(last)"
        case .open(let until): return "\(server): open until \(until.formatted(.iso8601)) after \(failures)\(last)"
        case .halfOpen: return "\(server): half open, a trial request may go, after \(failures)\(last)"
        }
    }
}
