import Foundation
@testable import Reachability
import Testing

@Suite("Reachability monitor lifecycle")
struct MonitorLifecycleTests {
    /// What descriptor `number` is open on, told apart from any later descriptor that reuses the
    /// number: a socket's inode, an eventfd's id; `nil` once it is closed.
    private func identity(of number: Int32) -> String? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(number)") else { return nil }
        guard target == "anon_inode:[eventfd]" else { return target }
        let info = (try? String(contentsOfFile: "/proc/self/fdinfo/\(number)", encoding: .utf8)) ?? ""
        return target + (info.split(separator: "\n").first { $0.hasPrefix("eventfd-id:") }.map { " " + $0 } ?? "")
    }

    /// Checks the monitor's own descriptors, by identity, so that sockets other tests open
    /// meanwhile (the suite may run in parallel) do not count.
    @Test("stopping releases the sockets and the thread: no descriptor leaks over repeated starts")
    func noDescriptorLeak() async throws {
        let monitor = ReachabilityMonitor(host: "127.0.0.1")
        for _ in 0..<5 {
            let recorder = StatusRecorder(monitor)
            try monitor.startMonitoring()
            #expect(await recorder.wait(timeout: .seconds(5)) { _ in true } != nil)
            let held = monitor.descriptorsInUse.map { ($0, identity(of: $0)) }
            #expect(held.count == 3, "the wake eventfd, the event socket and the request socket: \(held)")
            #expect(held.allSatisfy { $0.1?.hasPrefix("socket:") == true || $0.1?.hasPrefix("anon_inode:[eventfd]") == true }, "\(held)")
            monitor.stopMonitoring()
            #expect(monitor.descriptorsInUse.isEmpty)
            let leaked = held.filter { number, before in before != nil && identity(of: number) == before }
            #expect(leaked.isEmpty, "still open after stop: \(leaked)")
        }
    }

    @Test("the first status comes soon after start; stop returns to unknown; streams go on across restarts")
    func startAndStop() async throws {
        let monitor = ReachabilityMonitor(host: "127.0.0.1")
        let recorder = StatusRecorder(monitor)  // made before monitoring starts
        try monitor.startMonitoring()
        try monitor.startMonitoring()  // a second start changes nothing
        #expect(monitor.isMonitoring)
        let first = try #require(await recorder.wait(timeout: .seconds(5)) { _ in true })
        #expect(first.status.interface?.kind == .loopback)
        #expect(first.status.localizedDescription == "Reachable via Loopback")

        let late = StatusRecorder(monitor)
        #expect(await late.wait(timeout: .seconds(5)) { _ in true }?.status == first.status, "the current status first")

        monitor.stopMonitoring()
        #expect(monitor.status == .unknown)
        #expect(!monitor.isMonitoring)
        monitor.stopMonitoring()  // a second stop changes nothing

        try monitor.startMonitoring()
        defer { monitor.stopMonitoring() }
        #expect(await recorder.wait(after: 1, timeout: .seconds(5)) { $0.isReachable } != nil, "the same stream after a restart")
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
        // A timeout no clock can count (Task.sleep traps on it) waits as long as it must, no more.
        #expect(await loopback.waitUntilReachable(timeout: .seconds(Int64.max))?.interface?.kind == .loopback)

        let nowhere = ReachabilityMonitor(host: "name.that.does.not.resolve.invalid")
        try nowhere.startMonitoring()
        defer { nowhere.stopMonitoring() }
        let started = ContinuousClock.now
        #expect(await nowhere.waitUntilReachable(timeout: .milliseconds(300)) == nil)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        // The name's look-up may outlast the timeout on a busy machine: its answer, when it comes.
        for _ in 0..<200 where nowhere.status == .unknown { try await Task.sleep(for: .milliseconds(50)) }
        #expect(nowhere.status == .notReachable)

        // A timeout no clock can count (Task.sleep traps on one) waits, and a cancellation ends it.
        let endless = Task { await nowhere.waitUntilReachable(timeout: .seconds(Int64.max)) }
        try await Task.sleep(for: .milliseconds(300))
        endless.cancel()
        #expect(await endless.value == nil)
    }

    @Test("currentStatus reads the routing table once, without monitoring")
    func oneShot() throws {
        #expect(try ReachabilityMonitor.currentStatus(of: .host("127.0.0.1")).interface?.kind == .loopback)
        #expect(try ReachabilityMonitor.currentStatus(of: .host("::1")).interface?.kind == .loopback)
        #expect(try ReachabilityMonitor.currentStatus(of: .host("name.that.does.not.resolve.invalid")) == .notReachable)
        // A NUL would end the C string the resolver reads: `localhost` is not the host asked about.
        #expect(try ReachabilityMonitor.currentStatus(of: .host("localhost\u{0}.invalid")) == .notReachable)
    }
}
