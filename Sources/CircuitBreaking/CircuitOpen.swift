import Foundation
import TransportSecurity

/// A request refused because its server's circuit is open: after `failures` failures in a row,
/// the last one `lastFailure`, requests to `server` (`https://host:port`) fail at once and nothing
/// of this one was sent. A trial request may go after `retryAfter`; zero: one is under way.
public struct CircuitOpen: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server (`https://host:port`).
    public let server: String
    /// The failures in a row that opened the circuit.
    public let failures: Int
    /// The last of them, in a sentence (empty when unknown).
    public let lastFailure: String
    /// How long until a trial request may go; zero: one is under way.
    public let retryAfter: Duration

    /// Creates the refusal.
    public init(server: String, failures: Int, lastFailure: String, retryAfter: Duration) {
        self.server = server
        self.failures = failures
        self.lastFailure = lastFailure
        self.retryAfter = retryAfter
    }

    /// `not sent: the circuit of https://host:port is open after N failures in a row (last: …); …`.
    public var description: String {
        let when = retryAfter > .zero ? "a trial request may go in \(retryAfter.formattedSeconds)" : "a trial request is under way"
        let last = lastFailure.isEmpty ? "" : " (last: \(lastFailure))"
        return "not sent: the circuit of \(server) is open after \(failures) failure\(failures == 1 ? "" : "s") in a row\(last); \(when)"
    }
}
