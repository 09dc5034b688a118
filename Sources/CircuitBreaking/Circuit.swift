/// One server's circuit: closed (requests go), open (they fail at once until a moment), half open
/// (a few trial requests go, the others fail at once). A pure state machine: the moment is given,
/// so that it is tested without waiting.
///
/// Every change of state starts a new generation, and an outcome counts only for the generation
/// whose permit the request was given: a request sent before the circuit opened that fails
/// afterwards does not keep it open longer, nor does one that succeeds close it. A circuit has an
/// identity of its own (`id`), so that a permit of a circuit forgotten and made anew counts for
/// nothing.
package struct Circuit: Sendable {
    enum Phase: Sendable, Equatable {
        case closed
        case open(until: ContinuousClock.Instant)
        case halfOpen(trialsUnderWay: Int)
    }

    /// What a request was given to go: the circuit and generation it counts for, and whether it
    /// is a trial.
    package struct Permit: Sendable, Equatable {
        let circuit: UInt64
        let generation: UInt64
        let isTrial: Bool
    }

    /// How a request that went ended, for its circuit.
    package enum Outcome: Sendable, Equatable {
        /// The server answered (with a status not counted as a failure).
        case success
        /// A failure counted, in words.
        case failure(String)
        /// Neither: cancelled, refused for its certificate, invalid.
        case neutral
    }

    /// A change worth telling (a log line, a metric).
    package enum Transition: Sendable, Equatable {
        /// Opened after `failures` failures in a row, for `duration`.
        case opened(failures: Int, duration: Duration)
        /// A trial failed: open again, for `duration`.
        case reopened(duration: Duration)
        /// A trial succeeded.
        case closed
    }

    let id: UInt64
    private(set) var phase = Phase.closed
    /// Failures in a row: while closed, since the last success; while open, those that opened it.
    private(set) var consecutiveFailures = 0
    /// The last failure counted, in words.
    private(set) var lastFailure: String?
    /// Times opened since the circuit was last closed.
    private(set) var timesOpened = 0
    private var generation: UInt64 = 0
    /// Requests given a permit whose outcome has not been recorded.
    private(set) var requestsUnderWay = 0

    /// A closed circuit with nothing counted.
    init(id: UInt64) {
        self.id = id
    }

    /// Whether the circuit holds nothing worth keeping: closed, no failure counted, no request
    /// under way.
    var isForgettable: Bool { phase == .closed && consecutiveFailures == 0 && requestsUnderWay == 0 }

    /// A permit for a request about to go at `now`, or how long until one may go (zero while
    /// trials are under way).
    mutating func admit(at now: ContinuousClock.Instant, policy: CircuitBreakerPolicy) -> Result<Permit, RefusedByCircuit> {
        if case .open(let until) = phase {
            guard now >= until else { return .failure(RefusedByCircuit(retryAfter: until - now)) }
            phase = .halfOpen(trialsUnderWay: 0)
        }
        guard case .halfOpen(let underWay) = phase else {
            requestsUnderWay += 1
            return .success(Permit(circuit: id, generation: generation, isTrial: false))
        }
        guard underWay < max(policy.trialRequests, 1) else { return .failure(RefusedByCircuit(retryAfter: .zero)) }
        phase = .halfOpen(trialsUnderWay: underWay + 1)
        requestsUnderWay += 1
        return .success(Permit(circuit: id, generation: generation, isTrial: true))
    }

    /// Counts `outcome` of the request given `permit`, at `now`.
    mutating func record(_ outcome: Outcome, of permit: Permit, at now: ContinuousClock.Instant, policy: CircuitBreakerPolicy) -> Transition? {
        guard permit.circuit == id else { return nil }
        requestsUnderWay = max(requestsUnderWay - 1, 0)
        guard permit.generation == generation else { return nil }
        switch (phase, outcome) {
        case (.closed, .success):
            consecutiveFailures = 0
            lastFailure = nil
            return nil
        case (.closed, .failure(let reason)):
            consecutiveFailures += 1
            lastFailure = reason
            guard consecutiveFailures >= max(policy.failureThreshold, 1) else { return nil }
            let duration = open(at: now, policy: policy)
            return .opened(failures: consecutiveFailures, duration: duration)
        case (.halfOpen, .success):
            phase = .closed
            (consecutiveFailures, lastFailure, timesOpened) = (0, nil, 0)
            generation &+= 1
            return .closed
        case (.halfOpen, .failure(let reason)):
            lastFailure = reason
            return .reopened(duration: open(at: now, policy: policy))
        case (.halfOpen(let underWay), .neutral):
            // The trial told nothing: another may go.
            phase = .halfOpen(trialsUnderWay: max(underWay - 1, 0))
            return nil
        case (.closed, .neutral), (.open, _):
            return nil
        }
    }

    /// Opens the circuit from `now`; answers for how long.
    private mutating func open(at now: ContinuousClock.Instant, policy: CircuitBreakerPolicy) -> Duration {
        timesOpened += 1
        let duration = policy.openDuration(timesOpened: timesOpened)
        phase = .open(until: now + duration)
        generation &+= 1
        return duration
    }
}

/// A request a circuit did not let go, and how long until one may (zero: while trials are under
/// way).
struct RefusedByCircuit: Error, Equatable {
    let retryAfter: Duration
}
