#if GRPC
import GRPCCore

/// gRPC's health-checking protocol from the client's side: `grpc.health.v1.Health/Check`, what
/// Kubernetes' gRPC probes and `grpc_health_probe` ask a server, and `Watch`, the status as it
/// changes; here over a transport whose TLS TransportSecurity decides (pins, a client
/// certificate; `tsec grpc-health`).
///
/// ```swift
/// try await withGRPCClient(transport: verifiedTransport) { client in
///     if try await GRPCHealthCheck.status(of: "payments.v1.Payments", through: client) != .serving {
///         // Wait until it serves:
///         let serves = try await GRPCHealthCheck.watch(of: "payments.v1.Payments", through: client) { statuses in
///             for try await status in statuses where status == .serving { return true }
///             return false   // the server ended the watch first
///         }
///         guard serves else { throw PaymentsUnavailable() }
///     }
/// }
/// ```
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
public enum GRPCHealthCheck {
    /// What a server says of a service (`grpc.health.v1.HealthCheckResponse.ServingStatus`).
    public enum ServingStatus: Sendable, Hashable, CustomStringConvertible {
        /// `UNKNOWN`: the server does not know yet.
        case unknown
        /// `SERVING`.
        case serving
        /// `NOT_SERVING`: the service is there and does not serve now (starting, draining).
        case notServing
        /// `SERVICE_UNKNOWN`: meant for the `Watch` method; a `Check` of an unknown service
        /// fails `NOT_FOUND` instead.
        case serviceUnknown
        /// A value the protocol does not define.
        case unrecognized(Int)

        /// The status numbered `number` in `grpc.health.v1`'s `ServingStatus`.
        init(number: Int32) {
            switch number {
            case 0: self = .unknown
            case 1: self = .serving
            case 2: self = .notServing
            case 3: self = .serviceUnknown
            default: self = .unrecognized(Int(number))
            }
        }

        /// Its number in `ServingStatus`, as the wire carries it.
        var number: Int32 {
            switch self {
            case .unknown: 0
            case .serving: 1
            case .notServing: 2
            case .serviceUnknown: 3
            case .unrecognized(let value): Int32(truncatingIfNeeded: value)
            }
        }

        /// The protocol's name: `SERVING`, `NOT_SERVING`, `UNKNOWN`, `SERVICE_UNKNOWN`, or
        /// `unrecognized status N`.
        public var description: String {
            switch self {
            case .unknown: "UNKNOWN"
            case .serving: "SERVING"
            case .notServing: "NOT_SERVING"
            case .serviceUnknown: "SERVICE_UNKNOWN"
            case .unrecognized(let value): "unrecognized status \(value)"
            }
        }
    }

    /// `/grpc.health.v1.Health/Check`.
    public static let method = MethodDescriptor(fullyQualifiedService: "grpc.health.v1.Health", method: "Check")

    /// `/grpc.health.v1.Health/Watch`.
    public static let watchMethod = MethodDescriptor(fullyQualifiedService: "grpc.health.v1.Health", method: "Watch")

    /// Asks the server `client` reaches how `service` is.
    /// - Parameters:
    ///   - service: The fully qualified service name (`package.Service`); `""`, the default,
    ///     asks about the server as a whole.
    ///   - client: A running client (`withGRPCClient`).
    ///   - options: The call's options (its `timeout`; `waitForReady` false to fail at once on
    ///     a server that cannot be reached).
    /// - Returns: The status the server gave.
    /// - Throws: The call's `RPCError`: `NOT_FOUND` for a service the server does not know,
    ///   `UNIMPLEMENTED` from a server without the health service, `UNAVAILABLE` when no
    ///   connection could be made (its `cause` a ``ServerTrustRejection`` when the server's
    ///   certificate was refused), `DEADLINE_EXCEEDED`; `INVALID_ARGUMENT` for an answer that is
    ///   not a `HealthCheckResponse`.
    public static func status(
        of service: String = "",
        through client: GRPCClient<some ClientTransport>,
        options: CallOptions = .defaults
    ) async throws -> ServingStatus {
        var request = HealthCheckRequest()
        request.service = service
        return try await client.unary(
            request: ClientRequest(message: request),
            descriptor: method,
            serializer: ProtobufCoding<HealthCheckRequest>(),
            deserializer: ProtobufCoding<HealthCheckResponse>(),
            options: options
        ) { response in
            ServingStatus(number: try response.message.status)
        }
    }

    /// Watches how `service` is: the server sends its status now, then each change, until it
    /// ends the call (a server shutting down ends it with `OK`) or `body` returns.
    ///
    /// - Parameters:
    ///   - service: The fully qualified service name; `""`, the default, the server as a whole.
    ///   - client: A running client (`withGRPCClient`).
    ///   - options: The call's options; a `timeout` bounds the whole watch.
    ///   - body: Reads the statuses as they come (`SERVICE_UNKNOWN` while the server does not
    ///     know the service); returning ends the watch (the call is cancelled).
    /// - Returns: What `body` returned.
    /// - Throws: What `body` throws; reading the statuses throws the call's `RPCError`, as
    ///   ``status(of:through:options:)`` lists (`UNIMPLEMENTED` from a server that has `Check`
    ///   and not `Watch`).
    public static func watch<Result: Sendable>(
        of service: String = "",
        through client: GRPCClient<some ClientTransport>,
        options: CallOptions = .defaults,
        _ body: @Sendable @escaping (RPCAsyncSequence<ServingStatus, any Error>) async throws -> Result
    ) async throws -> Result {
        var request = HealthCheckRequest()
        request.service = service
        return try await client.serverStreaming(
            request: ClientRequest(message: request),
            descriptor: watchMethod,
            serializer: ProtobufCoding<HealthCheckRequest>(),
            deserializer: ProtobufCoding<HealthCheckResponse>(),
            options: options
        ) { response in
            try await body(RPCAsyncSequence(wrapping: response.messages.map { ServingStatus(number: $0.status) }))
        }
    }
}
#endif
