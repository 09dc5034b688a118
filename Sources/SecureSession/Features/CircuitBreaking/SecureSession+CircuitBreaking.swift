import CircuitBreaking

extension SecureSession {
    /// Runs `exchange` with `key`'s server if its circuit in `breaker` lets it, and counts how it
    /// ended. A refusal is thrown as ``ConnectionNotEstablished`` (nothing was sent), so that a
    /// cache's `stale-if-error` may answer in its place.
    func throughCircuit(
        of key: ConnectionKey,
        in breaker: CircuitBreaker,
        deadline: Deadline,
        _ exchange: () async throws -> Exchange
    ) async throws -> Exchange {
        let server = key.description
        let permit: Circuit.Permit
        switch breaker.admit(server) {
        case .success(let given):
            permit = given
        case .failure(let refusal):
            configuration.logger.debug("not sent: the server's circuit is open", metadata: ["server": "\(server)", "refusal": "\(refusal)"])
            throw ConnectionNotEstablished(error: .circuitOpen(
                server: refusal.server, failures: refusal.failures, lastFailure: refusal.lastFailure, retryAfter: refusal.retryAfter
            ))
        }
        do {
            let exchanged = try await exchange()
            let status = exchanged.head.status
            let outcome: Circuit.Outcome =
                breaker.policy.failureStatusCodes.contains(Int(status.code)) ? .failure("HTTP \(status.code) \(status.reasonPhrase)") : .success
            report(breaker.record(outcome, of: permit, to: server), of: server, after: outcome)
            return exchanged
        } catch {
            let outcome = Self.circuitOutcome(of: error, deadline: deadline, policy: breaker.policy)
            report(breaker.record(outcome, of: permit, to: server), of: server, after: outcome)
            throw error
        }
    }

    /// What a failed exchange tells of its server: a failure the policy counts, or nothing (a
    /// cancellation, a wait for the session's own connections or rate limit, a refusal decided
    /// here).
    static func circuitOutcome(of error: any Error, deadline: Deadline, policy: CircuitBreakerPolicy) -> Circuit.Outcome {
        let ended = deadline.ending
        if ended == nil, Task.isCancelled { return .neutral }
        guard let failure = ended ?? (error as? ConnectionNotEstablished)?.error ?? error as? SecureSessionError else { return .neutral }
        let counted: CircuitBreakerPolicy.CountedFailure
        switch failure.code {
        case .connectionFailed: counted = .connectionFailure
        case .tlsFailure: counted = .tlsFailure
        case .timeout:
            if ended != nil, deadline.endedWaitingOnClient { return .neutral }
            counted = .timeout
        default: return .neutral
        }
        return policy.countedFailures.contains(counted) ? .failure(failure.description) : .neutral
    }

    /// Tells the log and the metrics what `transition` changed.
    private func report(_ transition: Circuit.Transition?, of server: String, after outcome: Circuit.Outcome) {
        guard let transition else { return }
        let logger = configuration.logger
        let failure: String = if case .failure(let reason) = outcome { reason } else { "" }
        switch transition {
        case .opened(let failures, let duration):
            logger.debug("circuit opened: requests to the server fail at once for a while", metadata: [
                "server": "\(server)", "failures": "\(failures)", "last": "\(failure)", "for": "\(duration)",
            ])
        case .reopened(let duration):
            logger.debug("circuit opened again: the trial request failed", metadata: [
                "server": "\(server)", "failure": "\(failure)", "for": "\(duration)",
            ])
        case .closed:
            logger.debug("circuit closed: the trial request succeeded", metadata: ["server": "\(server)"])
        }
        instrumentation.circuit(of: server, isOpen: transition != .closed)
    }
}
