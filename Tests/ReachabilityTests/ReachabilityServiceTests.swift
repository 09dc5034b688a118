import Foundation
import Logging
@testable import Reachability
import ServiceLifecycle
import Testing

@Suite("The reachability monitor as a service")
struct ReachabilityServiceTests {
    @Test("in a ServiceGroup it monitors while the group runs; graceful shutdown stops it and closes its sockets")
    func monitorsWhileTheGroupRuns() async throws {
        let monitor = ReachabilityMonitor(host: "127.0.0.1")
        let recorder = StatusRecorder(monitor)
        let group = ServiceGroup(
            services: [monitor], gracefulShutdownSignals: [], logger: Logger(label: "reachability-service-tests", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let running = Task { try await group.run() }
        #expect(await recorder.wait(timeout: .seconds(5)) { $0.isReachable } != nil)
        #expect(monitor.isMonitoring)
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(!monitor.isMonitoring)
        #expect(monitor.status == .unknown)
        #expect(monitor.descriptorsInUse.isEmpty)
    }
}
