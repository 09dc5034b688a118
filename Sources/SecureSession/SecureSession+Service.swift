import ServiceLifecycle

/// A session is a swift-service-lifecycle `Service`: put it in the application's `ServiceGroup`
/// (Hummingbird's `services:`) and it is shut down with the application.
///
/// ```swift
/// let session = SecureSession(configuration: configuration)
/// let group = ServiceGroup(services: [session, server], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()   // on SIGTERM: the server stops first, then the session closes its connections
/// ```
extension SecureSession: Service {
    /// Waits until the service group shuts down gracefully (or the task is cancelled), then
    /// calls ``shutdown()``: requests still in flight fail with
    /// ``SecureSessionError/sessionShutDown``, so list the session before the services that use
    /// it in a `ServiceGroup`: a group shuts its services down in reverse order.
    public func run() async throws {
        // Cancellation ends the wait as graceful shutdown does: the session closes either way.
        try? await gracefulShutdown()
        await shutdown()
    }
}
