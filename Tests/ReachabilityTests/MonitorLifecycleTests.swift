import Foundation
import Reachability
import Testing

@Suite("Reachability monitor lifecycle")
struct MonitorLifecycleTests {
    /// The process's open sockets and eventfds (what a monitor opens), by descriptor number.
    /// Other descriptors (the concurrency runtime's timerfd, for one) come and go on their own.
    private func openDescriptors() throws -> [String: String] {
        let folder = "/proc/self/fd"
        var descriptors: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + name)) ?? "?"
            if target.hasPrefix("socket:") || target == "anon_inode:[eventfd]" { descriptors[name] = target }
        }
        return descriptors
    }

    @Test("stopping releases the sockets and the thread: no descriptor leaks over repeated starts")
    func noDescriptorLeak() async throws {
        let monitor = ReachabilityMonitor(host: "127.0.0.1")
        try monitor.startMonitoring()
        monitor.stopMonitoring()
        let before = try openDescriptors()
        for _ in 0..<5 {
            let recorder = StatusRecorder(monitor)
            try monitor.startMonitoring()
            #expect(try openDescriptors().count >= before.count + 3)  // event socket, request socket, wake eventfd
            #expect(await recorder.wait { _ in true } != nil)
            monitor.stopMonitoring()
        }
        let after = try openDescriptors()
        #expect(after.count == before.count, "opened and not closed: \(after.filter { before[$0.key] != $0.value })")
    }

    @Test("the first status comes soon after start; stop returns to unknown; streams go on across restarts")
    func startAndStop() async throws {
        let monitor = ReachabilityMonitor(host: "127.0.0.1")
        let recorder = StatusRecorder(monitor)  // made before monitoring starts
        try monitor.startMonitoring()
        try monitor.startMonitoring()  // a second start changes nothing
        #expect(monitor.isMonitoring)
        let first = try #require(await recorder.wait(timeout: .seconds(1)) { _ in true })
        #expect(first.status.interface?.kind == .loopback)
        #expect(first.status.localizedDescription == "Reachable via Loopback")

        let late = StatusRecorder(monitor)
        #expect(await late.wait(timeout: .seconds(1)) { _ in true }?.status == first.status, "the current status first")

        monitor.stopMonitoring()
        #expect(monitor.status == .unknown)
        #expect(!monitor.isMonitoring)
        monitor.stopMonitoring()  // a second stop changes nothing

        try monitor.startMonitoring()
        defer { monitor.stopMonitoring() }
        #expect(await recorder.wait(after: 1, timeout: .seconds(1)) { $0.isReachable } != nil, "the same stream after a restart")
    }

    @Test("the handler hears every change and may stop the monitor from inside")
    func handlerStops() async throws {
        let monitor = ReachabilityMonitor(host: "127.0.0.1")
        let heard = DispatchSemaphore(value: 0)
        monitor.setStatusChangeHandler { [weak monitor] _ in
            monitor?.stopMonitoring()
            heard.signal()
        }
        try monitor.startMonitoring()
        #expect(heard.wait(timeout: .now() + 2) == .success)
        try await Task.sleep(for: .milliseconds(50))
        #expect(!monitor.isMonitoring)
    }

    @Test("waitUntilReachable answers with the reachable status, or nil after the timeout")
    func waitUntilReachable() async throws {
        let loopback = ReachabilityMonitor(host: "127.0.0.1")
        try loopback.startMonitoring()
        defer { loopback.stopMonitoring() }
        #expect(await loopback.waitUntilReachable(timeout: .seconds(2))?.interface?.kind == .loopback)

        let nowhere = ReachabilityMonitor(host: "name.that.does.not.resolve.invalid")
        try nowhere.startMonitoring()
        defer { nowhere.stopMonitoring() }
        let started = ContinuousClock.now
        #expect(await nowhere.waitUntilReachable(timeout: .milliseconds(300)) == nil)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(nowhere.status == .notReachable)
    }

    @Test("currentStatus reads the routing table once, without monitoring")
    func oneShot() throws {
        #expect(try ReachabilityMonitor.currentStatus(of: .host("127.0.0.1")).interface?.kind == .loopback)
        #expect(try ReachabilityMonitor.currentStatus(of: .host("::1")).interface?.kind == .loopback)
        #expect(try ReachabilityMonitor.currentStatus(of: .host("name.that.does.not.resolve.invalid")) == .notReachable)
    }
}
