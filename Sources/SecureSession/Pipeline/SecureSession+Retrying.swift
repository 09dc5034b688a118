import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

extension SecureSession {
    /// Performs a request: once, or attempt after attempt as its interceptor (the request's, else
    /// the session's) asks; `prepare` makes each attempt's request last (a download's range). With `startingOver` (a body held in memory, a download's temporary
    /// file), every answer goes to `sink` as it comes and the interceptor is asked once it is
    /// complete and its connection given back; a retry then takes it back through
    /// `startingOver` (which answers whether it could). Without it (a stream), the interceptor
    /// is asked when the head arrives, and a retried answer's body is read and dropped.
    func perform(
        _ request: SecureRequest,
        preparing prepare: (@Sendable (SecureRequest) -> SecureRequest)? = nil,
        startingOver: (@Sendable () -> Bool)? = nil,
        sink: @escaping ResponseBodySink
    ) async throws -> SecureResponse {
        guard let interceptor = configuration.interceptor(for: request) else {
            do {
                return try await performWaitingForConnectivity(prepare?(request) ?? request, sink: sink)
            } catch let failure as ConnectionNotEstablished {
                throw failure.error
            }
        }
        let clock = ContinuousClock()
        let started = clock.now
        let requestID = UUID()
        var number = 1
        while true {
            let attempt = RequestAttempt(number: number, elapsed: clock.now - started, requestID: requestID)
            var adapted = try await interceptor.adapt(request, attempt: attempt)
            // However the interceptor made its request, its answer is checked as the caller's is.
            adapted.arrivalCheck = request.arrivalCheck
            let sent = prepare?(adapted) ?? adapted
            let gate = RetryGate(decidingAtHead: startingOver == nil) { head in
                // An answer that must be signed is acted on (retried: an OAuth token renewed and
                // the request sent again, a Retry-After obeyed) only once its signature holds.
                try request.arrivalCheck?.verifyHead(head)
                return await interceptor.retry(sent, after: .response(head), attempt: attempt)
            }
            let wait: Duration
            let reason: String
            do {
                var response = try await performWaitingForConnectivity(sent) { head, buffer in
                    try await gate.pass(head, buffer, to: sink)
                }
                guard case .retry(let after) = try await gate.decision(for: { ResponseHead(response) }),
                    !gate.hasHandedOver || startingOver?() == true
                else {
                    response.attempts = number
                    response.duration = clock.now - started
                    return response
                }
                (wait, reason) = (after, "status \(response.statusCode)")
            } catch {
                let (failure, requestSent) = Self.failure(of: error)
                guard let failure else { throw error }
                // An answer refused for its signature is never retried.
                if failure.code == .responseSignatureRejected { throw failure }
                // An answer already judged worth retrying that broke off while its body was read
                // and dropped is retried as decided; other failures are put to the interceptor.
                var decision = gate.decided ?? .doNotRetry
                if decision == .doNotRetry {
                    decision = await interceptor.retry(sent, after: .failure(failure, requestSent: requestSent), attempt: attempt)
                }
                guard case .retry(let after) = decision else { throw failure }
                // Part of the answer that reached the caller must be taken back first.
                if gate.hasHandedOver, startingOver?() != true { throw failure }
                (wait, reason) = (after, failure.description)
            }
            configuration.logger(for: request).debug("retrying", metadata: [
                "url": "\(request.url.redacted)", "attempt": "\(number + 1)", "after": "\(wait)", "because": "\(reason)",
            ])
            try await Self.pause(wait)
            number += 1
        }
    }

    /// The session's error in `error`, and whether the request may have been sent.
    private static func failure(of error: any Error) -> (SecureSessionError?, requestSent: Bool) {
        switch error {
        case let failure as ConnectionNotEstablished: return (failure.error, false)
        case let failure as SecureSessionError: return (failure, true)
        default: return (nil, true)
        }
    }

    /// Waits between attempts; a cancelled task ends the request.
    private static func pause(_ wait: Duration) async throws {
        do {
            if wait > .zero { try await Task.sleep(for: wait) }
            try Task.checkCancellation()
        } catch {
            throw SecureSessionError.cancelled
        }
    }
}

/// An attempt's answer on its way to the caller. Deciding at the head, the interceptor is asked
/// once, when the head arrives, whether to retry, and a retried answer's body is dropped, never
/// handed over; otherwise every part is handed over and the decision waits for the whole answer.
final class RetryGate: Sendable {
    private let ask: @Sendable (ResponseHead) async throws -> RetryDecision
    private let decidesAtHead: Bool
    private let verdict = NIOLockedValueBox<RetryDecision?>(nil)
    private let handedOver = LockedFlag()

    init(decidingAtHead: Bool, asking ask: @escaping @Sendable (ResponseHead) async throws -> RetryDecision) {
        self.decidesAtHead = decidingAtHead
        self.ask = ask
    }

    /// The decision on the answer whose head `head` makes, asked for the first time only.
    /// - Throws: what asking threw (an answer that must be signed and is not).
    func decision(for head: () -> ResponseHead) async throws -> RetryDecision {
        if let decided { return decided }
        let decision = try await ask(head())
        verdict.withLockedValue { $0 = decision }
        return decision
    }

    /// A part of the answer: to `sink`, unless the answer is to be retried.
    func pass(_ head: HTTPResponseHead, _ buffer: ByteBuffer, to sink: ResponseBodySink) async throws {
        if decidesAtHead, try await decision(for: { ResponseHead(head) }) != .doNotRetry { return }
        handedOver.set()
        try await sink(head, buffer)
    }

    /// The decision, once asked.
    var decided: RetryDecision? { verdict.withLockedValue { $0 } }

    /// Whether part of the answer reached the caller (it must be taken back before a retry).
    var hasHandedOver: Bool { handedOver.isSet }
}
