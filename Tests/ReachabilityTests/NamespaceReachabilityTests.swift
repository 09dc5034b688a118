import Foundation
import Reachability
import TestServers
import Testing

/// Real link and route changes in network namespaces made by the tests.
@Suite("Reachability in network namespaces", .enabled(if: NamespacePair.isAvailable, "needs root to create network namespaces"))
struct NamespaceReachabilityTests {
    private func monitor(_ pair: NamespacePair, target: ReachabilityTarget = .system, configure: (inout ReachabilityConfiguration) -> Void = { _ in }) -> ReachabilityMonitor {
        var configuration = ReachabilityConfiguration()
        configuration.networkNamespace = pair.monitoredPath
        configure(&configuration)
        return ReachabilityMonitor(target: target, configuration: configuration)
    }

    @Test("unknown before monitoring; no default route is notReachable")
    func noDefaultRoute() async throws {
        let pair = try NamespacePair()
        let monitor = monitor(pair)
        #expect(monitor.status == .unknown)
        #expect(!monitor.isReachable && !monitor.isReachableViaWiFi && !monitor.isReachableViaWWAN)
        let recorder = StatusRecorder(monitor)
        try monitor.startMonitoring()
        defer { monitor.stopMonitoring() }
        let first = try #require(await recorder.wait { _ in true })
        #expect(first.status == .notReachable)
        #expect(monitor.status == .notReachable)
    }

    @Test("an address and a default route make it reachable via ethernet; link down is notReachable within 1 s")
    func linkDown() async throws {
        let pair = try NamespacePair()
        try pair.connect()
        let monitor = monitor(pair)
        let recorder = StatusRecorder(monitor)
        try monitor.startMonitoring()
        defer { monitor.stopMonitoring() }
        #expect(await recorder.wait { $0 == .notReachable } != nil)

        try pair.ip("route add default via \(NamespacePair.peerAddress)")
        let reachable = try #require(await recorder.wait { $0.isReachable })
        #expect(reachable.status.interface?.name == "va")
        #expect(reachable.status.interface?.kind == .ethernet)
        #expect(monitor.isReachable && !monitor.isReachableViaWiFi && !monitor.isReachableViaWWAN)

        let seen = recorder.statuses.count
        let downAt = ContinuousClock.now
        try pair.ip("link set va down")
        let down = try #require(await recorder.wait(after: seen) { $0 == .notReachable })
        #expect(down.at - downAt < .seconds(1))

        // The peer losing its end takes the carrier away: not reachable either.
        try pair.ip("link set va up")
        try pair.ip("route add default via \(NamespacePair.peerAddress)")
        #expect(await recorder.wait(after: seen + 1) { $0.isReachable } != nil)
        let again = recorder.statuses.count
        try pair.peerIP("link set vb down")
        #expect(await recorder.wait(after: again) { $0 == .notReachable } != nil)
    }

    @Test("a host monitor follows the one route that leads to its address")
    func hostRoute() async throws {
        let pair = try NamespacePair()
        try pair.connect()
        try pair.ip("route add 10.88.0.0/24 via \(NamespacePair.peerAddress)")
        let routed = monitor(pair, target: .host("10.88.0.5"))
        let unrouted = monitor(pair, target: .host("10.99.0.5"))
        let system = monitor(pair)
        let loopback = monitor(pair, target: .host("localhost"))
        let recorders = [routed, unrouted, system, loopback].map(StatusRecorder.init)
        for monitor in [routed, unrouted, system, loopback] { try monitor.startMonitoring() }
        defer { for monitor in [routed, unrouted, system, loopback] { monitor.stopMonitoring() } }

        #expect(await recorders[0].wait { $0.isReachable(through: "va") } != nil)
        #expect(await recorders[1].wait { _ in true }?.status == .notReachable)
        #expect(await recorders[2].wait { _ in true }?.status == .notReachable)
        let local = try #require(await recorders[3].wait { _ in true })
        #expect(local.status.interface?.kind == .loopback)

        try pair.ip("route del 10.88.0.0/24")
        #expect(await recorders[0].wait { $0 == .notReachable } != nil)
        #expect(routed.status == .notReachable)
    }

    @Test("1,000 rapid route flaps: the monitor settles on the final status, with few evaluations and a bounded stream")
    func routeFlaps() async throws {
        let pair = try NamespacePair()
        try pair.connect()
        let monitor = monitor(pair)
        let recorder = StatusRecorder(monitor)
        try monitor.startMonitoring()
        defer { monitor.stopMonitoring() }
        #expect(await recorder.wait { $0 == .notReachable } != nil)
        // A stream nobody reads during the flood.
        let idle = monitor.statusUpdates()

        let add = "route add default via \(NamespacePair.peerAddress)"
        let delete = "route del default"
        try pair.batch((0..<1_001).map { $0.isMultiple(of: 2) ? add : delete })  // ends with the route added
        #expect(await recorder.waitForLatest { $0.isReachable(through: "va") })
        try pair.batch((0..<1_001).map { $0.isMultiple(of: 2) ? delete : add })  // ends with the route deleted
        #expect(await recorder.waitForLatest { $0 == .notReachable })
        try await Task.sleep(for: .milliseconds(400))
        #expect(monitor.status == .notReachable)

        let diagnostics = monitor.diagnostics
        #expect(diagnostics.eventsReceived + diagnostics.overflows > 0)
        #expect(diagnostics.evaluations < 100, "debounced: \(diagnostics.evaluations) evaluations for 2,000 route changes")

        let buffered = await StatusRecorder.collect(idle, for: .milliseconds(300))
        #expect(buffered.count <= monitor.configuration.streamBufferSize)
        #expect(buffered.last == .notReachable)
    }

    @Test("events dropped by a full socket buffer (ENOBUFS) make the monitor read the state again")
    func overflowRecovery() async throws {
        let pair = try NamespacePair()
        try pair.connect()
        let monitor = monitor(pair) { $0.receiveBufferSize = 4_096 }
        // The first status blocks the monitor's thread until the flood is over, so the kernel
        // has to drop events.
        let gate = DispatchSemaphore(value: 0)
        let firstCall = LockedFlag()
        monitor.setStatusChangeHandler { _ in
            if firstCall.setOnce() { _ = gate.wait(timeout: .now() + 10) }
        }
        let recorder = StatusRecorder(monitor)
        try monitor.startMonitoring()
        defer { monitor.stopMonitoring() }
        let add = "route add default via \(NamespacePair.peerAddress)"
        try pair.batch((0..<1_001).map { $0.isMultiple(of: 2) ? add : "route del default" })
        gate.signal()
        #expect(await recorder.waitForLatest { $0.isReachable(through: "va") })
        #expect(monitor.diagnostics.overflows >= 1)
    }

    @Test("a namespace that does not exist, or whose path holds a NUL, is an error naming it")
    func missingNamespace() {
        var configuration = ReachabilityConfiguration()
        configuration.networkNamespace = "/run/netns/tsec-does-not-exist"
        let monitor = ReachabilityMonitor(configuration: configuration)
        #expect {
            try monitor.startMonitoring()
        } throws: { error in
            guard let error = error as? ReachabilityError else { return false }
            return error.reason == .namespaceUnavailable && error.description.contains("tsec-does-not-exist")
        }
        #expect(!monitor.isMonitoring)

        // A NUL would have ended the path at this process's own namespace.
        configuration.networkNamespace = "/proc/self/ns/net\u{0}/elsewhere"
        let cut = ReachabilityMonitor(configuration: configuration)
        #expect {
            try cut.startMonitoring()
        } throws: { error in
            (error as? ReachabilityError)?.description.contains("/proc/self/ns/net\\0/elsewhere: the path holds a NUL character") == true
        }
        #expect(!cut.isMonitoring)
    }
}

/// A flag that is set once.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var isSet = false

    /// Sets the flag; true only for the first caller.
    func setOnce() -> Bool {
        lock.withLock {
            defer { isSet = true }
            return !isSet
        }
    }
}
