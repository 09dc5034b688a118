#if GRPC
import CircuitBreaking
import GRPCCore
import Logging
import NIOSSL

/// A `CircuitBreaker` for gRPC calls, as a grpc-swift client interceptor: calls
/// to a server that keeps answering that it cannot serve (overloaded, in maintenance, its
/// backends down) fail at once for a while, before anything is sent, instead of adding to its
/// load, as the session's HTTP requests do on 502, 503 and 504.
///
/// ```swift
/// let breaker = CircuitBreaker()   // the one the HTTP session has, to share the server's circuit
/// try await withGRPCClient(
///     transport: transport,
///     interceptors: [CircuitBreakingInterceptor(breaker, host: "payments.partner.example", port: 443)]
/// ) { client in /* the calls */ }
/// ```
///
/// The circuit is the breaker's for `https://host:port`, shared with the HTTP requests a
/// `SecureSession` with the same breaker sends to that server. Counted as failures
/// (when the breaker's `CircuitBreakerPolicy.countedFailures` has
/// `CircuitBreakerPolicy.CountedFailure.connectionFailure`): calls that end
/// `UNAVAILABLE` once their stream was open (the server's answer, or a connection that broke
/// under the call); `DEADLINE_EXCEEDED` answered by the server counts as a timeout. A call the
/// server answered with any other status (`OK`, `NOT_FOUND`, `UNAUTHENTICATED`, …) is a success. A
/// cancelled call, one past its own deadline (grpc-swift cancels it) and one whose server the
/// verifier rejected (a ``ServerTrustRejection``: a wrong pin is not an outage) count neither way.
/// A call's status is read from the response's head: a streaming call that fails after its first
/// message counts as answered.
///
/// grpc-swift runs interceptors only once a call has a stream, so a server that cannot be
/// reached at all is not seen here: grpc-swift's own channel already fails such calls at once
/// (its transient-failure state, `UNAVAILABLE` unless `waitForReady`) and tries to connect again
/// with its own backoff.
///
/// An open circuit fails the call `UNAVAILABLE`, its `cause` the
/// `CircuitOpen` (CircuitBreaking) that
/// names the server, the failures and the wait; its message is that error's. A retry policy
/// naming `.unavailable` tries again after its backoff, and fails at once again while the circuit
/// is open.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
public struct CircuitBreakingInterceptor: ClientInterceptor, CustomStringConvertible {
    /// The circuits.
    public let breaker: CircuitBreaker
    /// The server whose circuit the calls go through: `https://host:port`.
    public let server: String
    private let logger: Logger

    /// Calls to `host`'s `port` go through its circuit in `breaker`.
    /// - Parameters:
    ///   - breaker: The breaker that keeps the circuits (shareable with a `SecureSession`).
    ///   - host: The server's name or address, as the transport's target names it.
    ///   - port: The server's port.
    ///   - logger: Where circuits opening and closing are told (at debug level); nothing is
    ///     logged unless given.
    public init(_ breaker: CircuitBreaker, host: String, port: Int = 443, logger: Logger = Logger(label: "TransportSecurityGRPC.CircuitBreaking", factory: SwiftLogNoOpLogHandler.init)) {
        self.breaker = breaker
        self.server = CircuitBreaker.secureServer(host: host, port: port)
        self.logger = logger
    }

    /// `CircuitBreakingInterceptor(https://host:port)`.
    public var description: String { "CircuitBreakingInterceptor(\(server))" }

    /// The call, if the server's circuit lets it go, its outcome counted.
    /// - Throws: An `RPCError` `UNAVAILABLE` when the circuit is open (the refusal as its
    ///   cause); the call's own errors.
    public func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingClientRequest<Input>,
        context: ClientContext,
        next: (StreamingClientRequest<Input>, ClientContext) async throws -> StreamingClientResponse<Output>
    ) async throws -> StreamingClientResponse<Output> {
        let permit: Circuit.Permit
        switch breaker.admit(server) {
        case .success(let given):
            permit = given
        case .failure(let refusal):
            throw RPCError(code: .unavailable, message: "\(refusal)", cause: refusal)
        }
        do {
            let response = try await next(request, context)
            switch response.accepted {
            case .success: record(.success, of: permit)
            case .failure(let error): record(outcome(of: error), of: permit)
            }
            return response
        } catch {
            record(outcome(of: error), of: permit)
            throw error
        }
    }

    /// What a failed call tells of its server.
    func outcome(of error: any Error) -> Circuit.Outcome {
        guard let error = error as? RPCError, !Task.isCancelled else { return .neutral }
        let counted: CircuitBreakerPolicy.CountedFailure
        switch error.code {
        case .unavailable:
            let causes = Self.causes(of: error)
            if causes.contains(where: { $0 is ServerTrustRejection }) { return .neutral }
            counted = causes.contains { $0 is NIOSSLError || $0 is BoringSSLError } ? .tlsFailure : .connectionFailure
        case .deadlineExceeded:
            counted = .timeout
        case .cancelled:
            return .neutral
        default:
            return .success
        }
        return breaker.policy.countedFailures.contains(counted) ? .failure("\(error.code): \(error.message)") : .neutral
    }

    /// `error`'s causes, the nearest first.
    private static func causes(of error: RPCError) -> [any Error] {
        var causes: [any Error] = []
        var next = error.cause
        while let cause = next, causes.count < 8 {
            causes.append(cause)
            next = (cause as? RPCError)?.cause
        }
        return causes
    }

    /// Counts `outcome` and tells the log what it changed.
    private func record(_ outcome: Circuit.Outcome, of permit: Circuit.Permit) {
        switch breaker.record(outcome, of: permit, to: server) {
        case .opened(let failures, let duration):
            logger.debug("circuit opened: gRPC calls to the server fail at once for a while", metadata: [
                "server": "\(server)", "failures": "\(failures)", "for": "\(duration)",
            ])
        case .reopened(let duration):
            logger.debug("circuit opened again: the trial call failed", metadata: ["server": "\(server)", "for": "\(duration)"])
        case .closed:
            logger.debug("circuit closed: the trial call succeeded", metadata: ["server": "\(server)"])
        case nil:
            break
        }
    }
}
#endif
