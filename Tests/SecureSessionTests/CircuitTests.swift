@testable import CircuitBreaking
import Foundation
import Testing

@testable import SecureSession

/// `Circuit`, the state machine of one server's circuit, at moments the test chooses.
@Suite("Circuit (state machine)")
struct CircuitTests {
    static let start = ContinuousClock.now
    static let policy = CircuitBreakerPolicy(failureThreshold: 3, openDuration: .seconds(10), maximumOpenDuration: .seconds(35))

    /// A permit at `seconds` past the start, failing the test when none is given.
    private static func permit(_ circuit: inout Circuit, at seconds: Double, policy: CircuitBreakerPolicy = policy) throws -> Circuit.Permit {
        try circuit.admit(at: start + .seconds(seconds), policy: policy).get()
    }

    private static func refusal(_ circuit: inout Circuit, at seconds: Double, policy: CircuitBreakerPolicy = policy) -> Duration? {
        guard case .failure(let refusal) = circuit.admit(at: start + .seconds(seconds), policy: policy) else { return nil }
        return refusal.retryAfter
    }

    private static func record(
        _ circuit: inout Circuit, _ outcome: Circuit.Outcome, of permit: Circuit.Permit, at seconds: Double, policy: CircuitBreakerPolicy = policy
    ) -> Circuit.Transition? {
        circuit.record(outcome, of: permit, at: start + .seconds(seconds), policy: policy)
    }

    @Test("closed: failures below the threshold leave it closed, a success starts the count again; the threshold in a row opens it for openDuration, refusing with the time left")
    func opens() throws {
        var circuit = Circuit(id: 1)
        for _ in 0..<2 {
            let permit = try Self.permit(&circuit, at: 0)
            #expect(Self.record(&circuit, .failure("connection failed: refused"), of: permit, at: 0) == nil)
        }
        #expect(circuit.consecutiveFailures == 2)
        let success = try Self.permit(&circuit, at: 1)
        #expect(Self.record(&circuit, .success, of: success, at: 1) == nil)
        #expect(circuit.consecutiveFailures == 0 && circuit.lastFailure == nil)
        #expect(circuit.isForgettable)

        let permits = try (0..<3).map { _ in try Self.permit(&circuit, at: 2) }
        #expect(Self.record(&circuit, .failure("HTTP 503 Service Unavailable"), of: permits[0], at: 2) == nil)
        #expect(Self.record(&circuit, .failure("HTTP 503 Service Unavailable"), of: permits[1], at: 2) == nil)
        #expect(Self.record(&circuit, .failure("HTTP 502 Bad Gateway"), of: permits[2], at: 2) == .opened(failures: 3, duration: .seconds(10)))
        #expect(circuit.phase == .open(until: Self.start + .seconds(12)))
        #expect(circuit.lastFailure == "HTTP 502 Bad Gateway")
        #expect(Self.refusal(&circuit, at: 2) == .seconds(10))
        #expect(Self.refusal(&circuit, at: 11.5) == .milliseconds(500))
        #expect(!circuit.isForgettable)
    }

    @Test("neutral outcomes (cancelled, certificate rejected) count neither way while closed")
    func neutralWhileClosed() throws {
        var circuit = Circuit(id: 1)
        let first = try Self.permit(&circuit, at: 0)
        _ = Self.record(&circuit, .failure("timed out"), of: first, at: 0)
        let neutral = try Self.permit(&circuit, at: 0)
        #expect(Self.record(&circuit, .neutral, of: neutral, at: 0) == nil)
        #expect(circuit.consecutiveFailures == 1)
        #expect(circuit.requestsUnderWay == 0)
    }

    /// A circuit opened at 0 (10 s).
    private static func opened() throws -> Circuit {
        var circuit = Circuit(id: 1)
        for _ in 0..<3 {
            let permit = try Self.permit(&circuit, at: 0)
            _ = Self.record(&circuit, .failure("connection failed"), of: permit, at: 0)
        }
        return circuit
    }

    @Test("half open after openDuration: one trial goes, the others are refused with no wait; the trial's success closes it and forgets the failures")
    func trialCloses() throws {
        var circuit = try Self.opened()
        let trial = try Self.permit(&circuit, at: 10)
        #expect(trial.isTrial)
        #expect(circuit.phase == .halfOpen(trialsUnderWay: 1))
        #expect(Self.refusal(&circuit, at: 10.5) == .zero)
        #expect(Self.record(&circuit, .success, of: trial, at: 11) == .closed)
        #expect(circuit.phase == .closed && circuit.consecutiveFailures == 0 && circuit.timesOpened == 0)
        let after = try Self.permit(&circuit, at: 11)
        #expect(!after.isTrial)
        #expect(after.generation != trial.generation)
    }

    @Test("a failed trial opens it again for twice as long, up to maximumOpenDuration; a trial that tells nothing lets another go")
    func trialReopens() throws {
        var circuit = try Self.opened()
        var now = 10.0
        for expected in [20.0, 35, 35] {
            let trial = try Self.permit(&circuit, at: now)
            #expect(Self.record(&circuit, .failure("HTTP 504 Gateway Timeout"), of: trial, at: now) == .reopened(duration: .seconds(expected)))
            #expect(Self.refusal(&circuit, at: now) == .seconds(expected))
            now += expected
        }
        #expect(circuit.lastFailure == "HTTP 504 Gateway Timeout")
        let cancelled = try Self.permit(&circuit, at: now)
        #expect(Self.record(&circuit, .neutral, of: cancelled, at: now) == nil)
        #expect(circuit.phase == .halfOpen(trialsUnderWay: 0))
        let next = try Self.permit(&circuit, at: now)
        #expect(next.isTrial)
    }

    @Test("several trials at once when the policy allows them; the first success closes, and the others' outcomes no longer count")
    func severalTrials() throws {
        var policy = Self.policy
        policy.trialRequests = 2
        var circuit = try Self.opened()
        let first = try Self.permit(&circuit, at: 10, policy: policy)
        let second = try Self.permit(&circuit, at: 10, policy: policy)
        #expect(Self.refusal(&circuit, at: 10, policy: policy) == .zero)
        #expect(Self.record(&circuit, .success, of: first, at: 10, policy: policy) == .closed)
        #expect(Self.record(&circuit, .failure("connection failed"), of: second, at: 10, policy: policy) == nil)
        #expect(circuit.phase == .closed && circuit.consecutiveFailures == 0)
        #expect(circuit.isForgettable)
    }

    @Test("outcomes of requests sent before a change of state, or given by another circuit, count for nothing")
    func stalePermits() throws {
        var circuit = Circuit(id: 1)
        let early = try Self.permit(&circuit, at: 0)
        let lateSuccess = try Self.permit(&circuit, at: 0)
        for _ in 0..<3 {
            let permit = try Self.permit(&circuit, at: 0)
            _ = Self.record(&circuit, .failure("connection failed"), of: permit, at: 0)
        }
        // Sent while closed, ending while open: it neither prolongs nor closes the circuit.
        #expect(Self.record(&circuit, .failure("timed out"), of: early, at: 5) == nil)
        #expect(Self.record(&circuit, .success, of: lateSuccess, at: 5) == nil)
        #expect(circuit.phase == .open(until: Self.start + .seconds(10)))
        #expect(circuit.requestsUnderWay == 0)

        var other = Circuit(id: 2)
        let foreign = try Self.permit(&other, at: 0)
        let trial = try Self.permit(&circuit, at: 10)
        #expect(Self.record(&circuit, .success, of: Circuit.Permit(circuit: foreign.circuit, generation: trial.generation, isTrial: true), at: 10) == nil)
        #expect(circuit.phase == .halfOpen(trialsUnderWay: 1))
    }

    @Test("a policy's limits hold whatever is set: at least one failure and one trial, no negative wait, at most a year, doubling without overflow")
    func policyLimits() throws {
        let careless = CircuitBreakerPolicy(failureThreshold: 0, openDuration: .seconds(-5), maximumOpenDuration: .seconds(-1), trialRequests: 0)
        var circuit = Circuit(id: 1)
        let permit = try Self.permit(&circuit, at: 0, policy: careless)
        #expect(Self.record(&circuit, .failure("connection failed"), of: permit, at: 0, policy: careless) == .opened(failures: 1, duration: .zero))
        let trial = try Self.permit(&circuit, at: 0, policy: careless)
        #expect(trial.isTrial)
        #expect(Self.refusal(&circuit, at: 0, policy: careless) == .zero)

        let endless = CircuitBreakerPolicy(openDuration: .seconds(Int64.max / 4), maximumOpenDuration: .seconds(Int64.max))
        let year = Duration.seconds(365 * 86_400)
        #expect(endless.openDuration(timesOpened: 1) == year)
        #expect(endless.openDuration(timesOpened: 1_000) == year)
        let doubling = CircuitBreakerPolicy(openDuration: .seconds(1), maximumOpenDuration: .seconds(Int64.max))
        #expect((1...5).map { doubling.openDuration(timesOpened: $0) } == [1, 2, 4, 8, 16].map { Duration.seconds($0) })
        #expect(doubling.openDuration(timesOpened: 200) == year)
    }

    @Test("a breaker keeps a bounded table: past 10,000 servers, those closed or due for a trial with no request under way are forgotten; open ones and those with requests under way stay")
    func boundedTable() throws {
        let breaker = CircuitBreaker(policy: CircuitBreakerPolicy(failureThreshold: 2, openDuration: .seconds(60)))
        let open = "https://open.example:443"
        for _ in 0..<2 {
            let permit = try breaker.admit(open).get()
            _ = breaker.record(.failure("connection failed"), of: permit, to: open)
        }
        for index in 0..<(CircuitBreaker.maximumCircuits - 1) {
            let server = "https://dead-\(index).example:443"
            let permit = try breaker.admit(server).get()
            _ = breaker.record(.failure("connection failed"), of: permit, to: server)
        }
        #expect(breaker.statuses().count == CircuitBreaker.maximumCircuits)
        let underWay = try breaker.admit("https://busy.example:443").get()
        let kept = breaker.statuses()
        #expect(kept.map(\.server) == [open], "\(kept.count) kept")
        #expect(breaker.record(.failure("timed out"), of: underWay, to: "https://busy.example:443") == nil)
        #expect(breaker.statuses().map(\.server) == ["https://busy.example:443", open])
    }
}
