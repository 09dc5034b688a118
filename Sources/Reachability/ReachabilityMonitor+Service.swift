import ServiceLifecycle

/// A monitor is a swift-service-lifecycle `Service`: in a `ServiceGroup` it monitors for as long
/// as the application runs.
extension ReachabilityMonitor: Service {
    /// Starts monitoring, waits until the service group shuts down gracefully or the task is
    /// cancelled, then stops monitoring (its thread ends, its sockets close).
    ///
    /// The service owns the monitoring: a monitor given to a `ServiceGroup` is started by it,
    /// not by the caller, and monitoring the caller started before stops with the service too.
    /// - Throws: ``ReachabilityError`` when monitoring cannot start.
    public func run() async throws {
        try startMonitoring()
        defer { stopMonitoring() }
        try? await gracefulShutdown()
    }
}
