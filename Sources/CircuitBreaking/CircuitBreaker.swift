import Foundation
import TransportSecurity

/// Stops sending requests to a server that keeps failing, for a while, so that callers fail at
/// once instead of each waiting for a connection or a timeout, and a struggling server (a
/// partner API, a payment gateway) is not sent more than it can answer. Set it as
/// `SecureSessionConfiguration.features.circuitBreaker`; one breaker may serve several sessions.
///
/// Each server (scheme, host and port) has its own circuit, as Envoy's outlier detection and
/// Polly's circuit breaker keep one per upstream. Closed, requests go, and the failures in a row
/// are counted (``CircuitBreakerPolicy``: connections that fail, timeouts, 502, 503, 504);
/// ``CircuitBreakerPolicy/failureThreshold`` of them open it. Open, every request to the server
/// fails before a connection is sought, with
/// `SecureSessionError.circuitOpen`, until
/// ``CircuitBreakerPolicy/openDuration`` has passed; then it is half open, and one trial request
/// goes (the others still fail at once): its answer closes the circuit, its failure opens it again
/// for twice as long (up to ``CircuitBreakerPolicy/maximumOpenDuration``).
///
/// Every exchange with the network counts, each redirect and challenge its own (for the server it
/// went to), each attempt of a `RetryPolicy` too: a retry into an open circuit fails at once and
/// is not retried (`RetryPolicy` does not repeat `SecureSessionError.circuitOpen`),
/// and a response cache's `stale-if-error` answers in its place. Answers from the response cache
/// do not go near the circuit. WebSockets do not go through it; gRPC calls do when their client
/// has a `CircuitBreakingInterceptor` (`TransportSecurityGRPC`), sharing the circuit of the
/// server they name.
///
/// Safe to share between sessions and tasks. Only servers with failures counted or requests
/// under way are kept (a success while closed forgets the server), and past 10,000 of them, those
/// with no request under way whose circuit is closed or due for a trial are forgotten.
public final class CircuitBreaker: @unchecked Sendable {
    /// When circuits open, and for how long.
    public let policy: CircuitBreakerPolicy
    private let lock = NSLock()
    private var circuits: [String: Circuit] = [:]
    private var circuitsMade: UInt64 = 0
    /// A moment on both clocks, from which an instant is told as a date (the same date every
    /// time it is asked).
    private let reference = (instant: ContinuousClock.now, date: Date())

    /// A breaker with every circuit closed.
    public init(policy: CircuitBreakerPolicy = CircuitBreakerPolicy()) {
        self.policy = policy
    }

    /// The circuit of `url`'s server (`https://host:443`): closed when nothing is known of it.
    public func status(of url: URL) -> CircuitStatus {
        let server = ServerName.of(url)
        return lock.withLock { status(server, circuits[server], now: .now) }
    }

    /// Every circuit with failures counted, open or not, sorted by server: for a health check.
    public func statuses() -> [CircuitStatus] {
        let now = ContinuousClock.now
        return lock.withLock {
            circuits.filter { $0.value.phase != .closed || $0.value.consecutiveFailures > 0 }.map { status($0.key, $0.value, now: now) }
        }.sorted { $0.server < $1.server }
    }

    /// Closes every circuit and forgets every failure (an operator who knows a server is back).
    public func reset() {
        lock.withLock { circuits.removeAll() }
    }

    /// The name of the server at `host` and `port` over TLS (`https://host:port`), as circuits
    /// are kept: the circuit a gRPC call to it shares with HTTP requests to the same server.
    package static func secureServer(host: String, port: Int) -> String {
        ServerName.of(isSecure: true, host: ServerHost(host).name, port: port)
    }

    /// A permit for a request to `server`, or why not. Every permit given must be recorded.
    package func admit(_ server: String) -> Result<Circuit.Permit, CircuitOpen> {
        lock.withLock {
            let now = ContinuousClock.now
            var circuit = circuits[server] ?? newCircuit()
            let admission = circuit.admit(at: now, policy: policy)
            circuits[server] = circuit.isForgettable ? nil : circuit
            if circuits.count > Self.maximumCircuits { forgetQuietCircuits(at: now) }
            return admission.mapError { refusal in
                CircuitOpen(server: server, failures: circuit.consecutiveFailures, lastFailure: circuit.lastFailure ?? "", retryAfter: refusal.retryAfter)
            }
        }
    }

    /// Counts `outcome` of the request to `server` given `permit`; answers the change it made.
    package func record(_ outcome: Circuit.Outcome, of permit: Circuit.Permit, to server: String) -> Circuit.Transition? {
        lock.withLock {
            // Forgotten (``reset()``) since the permit was given: it counts for nothing.
            guard var circuit = circuits[server] else { return nil }
            let transition = circuit.record(outcome, of: permit, at: .now, policy: policy)
            circuits[server] = circuit.isForgettable ? nil : circuit
            return transition
        }
    }

    /// How many servers' circuits are kept before quiet ones are forgotten.
    static let maximumCircuits = 10_000

    /// Forgets the circuits with no request under way that are closed or whose open time has
    /// passed: a process calling many servers that fail (webhooks to dead endpoints) keeps a
    /// bounded table, at the price of counting those servers' failures again.
    private func forgetQuietCircuits(at now: ContinuousClock.Instant) {
        circuits = circuits.filter { _, circuit in
            guard circuit.requestsUnderWay == 0 else { return true }
            if case .open(let until) = circuit.phase { return until > now }
            return false
        }
    }

    /// A closed circuit with an identity no other had.
    private func newCircuit() -> Circuit {
        circuitsMade &+= 1
        return Circuit(id: circuitsMade)
    }

    private func status(_ server: String, _ circuit: Circuit?, now: ContinuousClock.Instant) -> CircuitStatus {
        guard let circuit else { return CircuitStatus(server: server, state: .closed, consecutiveFailures: 0, lastFailure: nil) }
        let state: CircuitStatus.State
        switch circuit.phase {
        case .closed: state = .closed
        case .open(let until) where until > now: state = .open(until: reference.date + (until - reference.instant).inMilliseconds / 1_000)
        case .open, .halfOpen: state = .halfOpen
        }
        return CircuitStatus(server: server, state: state, consecutiveFailures: circuit.consecutiveFailures, lastFailure: circuit.lastFailure)
    }
}
