#if GRPC
import TransportSecurity

/// Why a verified gRPC connection failed: its verifier rejected the server. The cause of the
/// `RPCError` (code `.unavailable`) an RPC then fails with, in place of swift-nio-ssl's
/// `CERTIFICATE_VERIFY_FAILED`, which says nothing of the policy.
///
/// ```swift
/// do {
///     _ = try await GRPCHealthCheck.status(through: client)   // any call
/// } catch let error as RPCError {
///     if let rejection = error.cause as? ServerTrustRejection {
///         print(rejection.decision.pinMismatch?.description ?? rejection.decision.reason)
///     }
/// }
/// ```
public struct ServerTrustRejection: Error, Sendable, CustomStringConvertible {
    /// The verifier's decision: the rule that decided, what was checked, the pins seen and expected.
    public let decision: TrustDecision
    /// The host the server was verified as.
    public let host: String

    /// `the server api.example.com was rejected: …`, with the pin report on a mismatch.
    public var description: String { "the server \(host) was \(decision)" }
}
#endif
