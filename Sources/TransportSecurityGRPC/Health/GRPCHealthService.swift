#if GRPC
import GRPCCore
import Synchronization

/// gRPC's health service (`grpc.health.v1.Health`) for a grpc-swift server: what Kubernetes'
/// gRPC probes, `grpc_health_probe`, `tsec grpc-health` and load balancers ask. `Check` answers
/// a service's status (`NOT_FOUND` for a service it was never told of); `Watch` streams it: the
/// status now (`SERVICE_UNKNOWN` for an unknown service), then every change.
///
/// ```swift
/// let health = GRPCHealthService()                       // the server as a whole: SERVING
/// health.setStatus(.notServing, of: "payments.v1.Payments")   // until its database is reachable
/// let server = GRPCServer(transport: mutualTLSTransport, services: [PaymentsService(), health])
/// // … serving, until the process is told to stop:
/// health.beginShutdown()   // every status NOT_SERVING, watchers told and their streams ended
/// server.beginGracefulShutdown()
/// ```
///
/// Behind a transport that requires client certificates (`HTTP2ServerTransport.Posix.TransportSecurity.verifyingClients(with:presenting:onDecision:)`),
/// only the clients the verifier admits can ask, as for any other service.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
public final class GRPCHealthService: RegistrableRPCService, Sendable {
    private typealias Watcher = AsyncStream<GRPCHealthCheck.ServingStatus>.Continuation

    private struct State {
        var statuses: [String: GRPCHealthCheck.ServingStatus]
        var watchers: [String: [UInt64: Watcher]] = [:]
        var nextWatcher: UInt64 = 0
        var isShutDown = false
    }

    private let state: Mutex<State>

    /// A service that knows `statuses`: by default the server as a whole (`""`) `SERVING`.
    public init(statuses: [String: GRPCHealthCheck.ServingStatus] = ["": .serving]) {
        state = Mutex(State(statuses: statuses))
    }

    /// The status of `service` (`""`: the server as a whole); `nil` for one never set.
    public func status(of service: String) -> GRPCHealthCheck.ServingStatus? {
        state.withLock { $0.statuses[service] }
    }

    /// Sets the status of `service` (`""`: the server as a whole), telling its watchers when it
    /// changes. Ignored after ``beginShutdown()`` until ``resume()``.
    public func setStatus(_ status: GRPCHealthCheck.ServingStatus, of service: String) {
        state.withLock { state in
            guard !state.isShutDown else { return }
            Self.set(status, of: service, in: &state)
        }
    }

    /// Every known service becomes `NOT_SERVING` and later ``setStatus(_:of:)`` calls are
    /// ignored, so that probes fail while the server drains; each `Watch` is told and its stream
    /// ended (with `OK`, after which the protocol has clients call again), so that watchers have
    /// heard it before the server goes. (A `Watch` whose client leaves, or whose server shuts
    /// down, is forgotten at once all the same.)
    public func beginShutdown() {
        let ended = state.withLock { state in
            state.isShutDown = true
            for service in state.statuses.keys { Self.set(.notServing, of: service, in: &state) }
            defer { state.watchers = [:] }
            return state.watchers.values.flatMap(\.values)
        }
        for watcher in ended { watcher.finish() }
    }

    /// Leaves the shutdown: every known service becomes `SERVING`, and statuses are set again.
    public func resume() {
        state.withLock { state in
            state.isShutDown = false
            for service in state.statuses.keys { Self.set(.serving, of: service, in: &state) }
        }
    }

    /// How many `Watch` calls are open now.
    public var watcherCount: Int {
        state.withLock { $0.watchers.values.reduce(0) { $0 + $1.count } }
    }

    private static func set(_ status: GRPCHealthCheck.ServingStatus, of service: String, in state: inout State) {
        guard state.statuses[service] != status else { return }
        state.statuses[service] = status
        for watcher in state.watchers[service, default: [:]].values { watcher.yield(status) }
    }

    /// The statuses of `service` from now on, the current one first, until `watcher` is
    /// finished (the call was cancelled) or the service shuts down.
    private func watch(_ service: String) -> (updates: AsyncStream<GRPCHealthCheck.ServingStatus>, watcher: Watcher) {
        let (updates, watcher) = AsyncStream.makeStream(of: GRPCHealthCheck.ServingStatus.self, bufferingPolicy: .bufferingNewest(1))
        let ended: Bool = state.withLock { state in
            watcher.yield(state.statuses[service] ?? .serviceUnknown)
            guard !state.isShutDown else { return true }
            let id = state.nextWatcher
            state.nextWatcher += 1
            state.watchers[service, default: [:]][id] = watcher
            watcher.onTermination = { [weak self] _ in
                self?.state.withLock { state in
                    state.watchers[service]?[id] = nil
                    if state.watchers[service]?.isEmpty == true { state.watchers[service] = nil }
                }
            }
            return false
        }
        if ended { watcher.finish() }
        return (updates, watcher)
    }

    /// Registers `Check` and `Watch`.
    public func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        router.registerHandler(
            forMethod: GRPCHealthCheck.method,
            deserializer: ProtobufCoding<HealthCheckRequest>(),
            serializer: ProtobufCoding<HealthCheckResponse>()
        ) { [self] request, _ in
            let service = try await Self.service(asked: request)
            guard let status = status(of: service) else {
                throw RPCError(code: .notFound, message: "unknown service '\(service)'")
            }
            return StreamingServerResponse(single: ServerResponse(message: HealthCheckResponse(status: status.number)))
        }
        router.registerHandler(
            forMethod: GRPCHealthCheck.watchMethod,
            deserializer: ProtobufCoding<HealthCheckRequest>(),
            serializer: ProtobufCoding<HealthCheckResponse>()
        ) { [self] request, _ in
            let (updates, watcher) = watch(try await Self.service(asked: request))
            return StreamingServerResponse { writer in
                // gRPC tells a handler of a cancelled call (the client gone, the server shutting
                // down) through this handler, not by cancelling its task.
                try await withRPCCancellationHandler {
                    for await status in updates { try await writer.write(HealthCheckResponse(status: status.number)) }
                } onCancelRPC: {
                    watcher.finish()
                }
                return [:]
            }
        }
    }

    /// The service a call's one request names.
    private static func service(asked request: StreamingServerRequest<HealthCheckRequest>) async throws -> String {
        var service = ""
        for try await message in request.messages { service = message.service }
        return service
    }
}
#endif
