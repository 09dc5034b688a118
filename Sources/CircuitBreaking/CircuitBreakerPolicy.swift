/// When a ``CircuitBreaker`` stops sending requests to a server, and for how long: after
/// ``failureThreshold`` failures in a row its circuit opens, and requests to it fail at once
/// with `SecureSessionError.circuitOpen` instead of
/// waiting for a connection or a timeout; after ``openDuration`` one trial request (``trialRequests``)
/// goes through, and its outcome closes the circuit again or keeps it open twice as long, up to
/// ``maximumOpenDuration``.
///
/// What counts as a failure: a connection that could not be made or broke, a timeout (not one
/// spent waiting for a connection of the session's own pool), and an answer whose status is in
/// ``failureStatusCodes`` (502, 503, 504: a gateway or server saying it cannot serve). Any other
/// answer, 500 and 4xx included, shows the server alive and is a success. A rejected certificate,
/// a refusal by the transport rules, an invalid request or a cancelled one counts neither way: the
/// first two are decided on every connection and never put off by a circuit.
public struct CircuitBreakerPolicy: Sendable, Hashable {
    /// A failure of the network or of time, counted unless left out of ``countedFailures``.
    public enum CountedFailure: Sendable, Hashable, CaseIterable {
        /// The connection could not be made, or broke (`SecureSessionError.connectionFailed`).
        case connectionFailure
        /// The request took longer than its time limit while connecting, sending or waiting for
        /// the answer (`SecureSessionError.timeout`).
        case timeout
        /// The TLS handshake failed (`SecureSessionError.tlsFailure`): a server whose TLS is
        /// broken. Not counted by default, since a handshake also fails for reasons of the
        /// client's own (a client certificate the server refuses).
        case tlsFailure
    }

    /// The statuses counted as failures by default: 502, 503 and 504.
    public static let unavailableStatusCodes: Set<Int> = [502, 503, 504]

    /// How many failures in a row open a server's circuit (at least 1).
    public var failureThreshold: Int
    /// How long a circuit stays open the first time, before a trial request goes through.
    public var openDuration: Duration
    /// The longest a circuit stays open: each failed trial doubles the time, up to this.
    public var maximumOpenDuration: Duration
    /// How many trial requests go through at once while a circuit is half open (at least 1);
    /// the others fail at once, as while it is open.
    public var trialRequests: Int
    /// The statuses counted as failures.
    public var failureStatusCodes: Set<Int>
    /// The failures counted.
    public var countedFailures: Set<CountedFailure>

    /// Creates a policy: 5 failures in a row open a circuit for 30 seconds, then up to 5 minutes.
    public init(
        failureThreshold: Int = 5,
        openDuration: Duration = .seconds(30),
        maximumOpenDuration: Duration = .seconds(300),
        trialRequests: Int = 1,
        failureStatusCodes: Set<Int> = CircuitBreakerPolicy.unavailableStatusCodes,
        countedFailures: Set<CountedFailure> = [.connectionFailure, .timeout]
    ) {
        self.failureThreshold = failureThreshold
        self.openDuration = openDuration
        self.maximumOpenDuration = maximumOpenDuration
        self.trialRequests = trialRequests
        self.failureStatusCodes = failureStatusCodes
        self.countedFailures = countedFailures
    }

    /// How long a circuit opened `timesOpened` times since it was last closed (1: the first time)
    /// stays open: ``openDuration``, doubled each further time, at most ``maximumOpenDuration``
    /// (and never less than ``openDuration`` or zero, nor more than a year, whatever is set).
    func openDuration(timesOpened: Int) -> Duration {
        let year = Duration.seconds(365 * 86_400)
        let first = min(max(openDuration, .zero), year)
        let longest = min(max(maximumOpenDuration, first), year)
        var duration = first
        for _ in 1..<max(timesOpened, 1) where duration < longest {
            // Halving the longest rather than doubling the duration: no overflow, however long.
            duration = duration > longest / 2 ? longest : duration * 2
        }
        return duration
    }
}
