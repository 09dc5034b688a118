import ServiceLifecycle

/// An updater is a swift-service-lifecycle `Service`: in a `ServiceGroup` it fetches signed pin
/// updates on its schedule for as long as the application runs.
extension PinSetUpdater: Service {
    /// Fetches now, then on ``schedule``, until the service group shuts down gracefully or the
    /// task is cancelled; a fetch in progress is cancelled then (the sets in force stay).
    public func run() async throws {
        let updates = start()
        await withTaskCancellationOrGracefulShutdownHandler {
            await updates.value
        } onCancelOrGracefulShutdown: {
            updates.cancel()
        }
    }
}
