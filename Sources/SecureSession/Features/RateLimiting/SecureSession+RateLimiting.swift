import Foundation
import RateLimiting

extension SecureSession {
    /// Runs `exchange` with `key`'s server once its turn under `limiter` comes; a turn that would
    /// come after the request's time limit is not waited for (``SecureSessionError/rateLimited(server:wait:timeLeft:)``,
    /// thrown as ``ConnectionNotEstablished``: nothing was sent). Then, under a concurrency
    /// limit, it waits for a slot (within the deadline; a turn not used is given back). A
    /// server's 429 or 503 asking for a pause pauses its schedule.
    func inTurn(
        of key: ConnectionKey,
        under limiter: RequestRateLimiter,
        deadline: Deadline,
        _ exchange: () async throws -> Exchange
    ) async throws -> Exchange {
        let server = key.description
        let timeLeft = max(deadline.remaining, .zero)
        let (wait, reserved) = limiter.reserve(server, patience: timeLeft)
        guard reserved else {
            throw ConnectionNotEstablished(error: .rateLimited(server: server, wait: wait, timeLeft: timeLeft))
        }
        if wait > .zero {
            deadline.enter(.waitingForTurn(key))
            configuration.logger.debug("waiting for its turn under the rate limit", metadata: ["server": "\(server)", "for": "\(wait)"])
            do {
                try await Task.sleep(for: wait)
            } catch {
                limiter.giveBack(server)
                throw SecureSessionError.cancelled
            }
        }
        var tookSlot = false
        if let maximum = limiter.maximumConcurrentRequests {
            deadline.enter(.waitingForSlot(key, maximum: maximum))
            do {
                tookSlot = try await limiter.takeSlot(server, deadline: deadline)
            } catch {
                limiter.giveBack(server)
                throw error
            }
        }
        defer { if tookSlot { limiter.giveBackSlot(server) } }
        let exchanged = try await exchange()
        let status = exchanged.head.status.code
        if limiter.pausesWhenAsked, status == 429 || status == 503,
            let asked = RetryAfter.delay(in: ResponseHead(exchanged.head), now: Date()), asked > .zero
        {
            limiter.pause(server, for: asked)
            configuration.logger.debug("the server asked for a pause: its requests wait", metadata: [
                "server": "\(server)", "status": "\(status)", "for": "\(min(asked, limiter.maximumPause))",
            ])
        }
        return exchanged
    }
}

extension Deadline: WaitBound {
    /// ``ending``, for the rate limiter's waits.
    package var endingReason: (any Error)? { ending }
}
