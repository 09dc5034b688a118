import ServiceLifecycle

/// A monitor is a swift-service-lifecycle `Service`: in a `ServiceGroup` it monitors for as long
/// as the application runs.
extension ReachabilityMonitor: Service {
    /// Starts monitoring, waits until the service group shuts down gracefully or the task is
    /// cancelled, then stops monitoring (its thread ends, its sockets close).
    /// - Throws: ``ReachabilityError`` when monitoring cannot start.
    public func run() async throws {
        try startMonitoring()
        defer { stopMonitoring() }
        try? await gracefulShutdown()
    }
}
