import Foundation

/// Watches whether the network, or one host, is reachable, and through which interface: the
/// `AFNetworkReachabilityManager` of this library, real on Linux.
///
/// On Linux the monitor follows the kernel's routing-netlink events (links, IPv4 and IPv6
/// addresses and routes) on a thread of its own. It never polls: it sleeps until the kernel
/// reports a change, lets a burst of changes settle (``ReachabilityConfiguration/quietPeriod``),
/// then asks the kernel which route it would use (as `ip route get` does) and whether that
/// route's interface is up with a carrier.
///
/// ```swift
/// let monitor = ReachabilityMonitor(host: "api.example.com")
/// try monitor.startMonitoring()
/// for await status in monitor.statusUpdates() {
///     print(status.localizedDescription)   // "Reachable via Ethernet", "Not Reachable", …
/// }
/// ```
///
/// The status is ``ReachabilityStatus/unknown`` until monitoring starts; the first real status
/// follows right after ``startMonitoring()``, and each change after that goes to the handler
/// (``setStatusChangeHandler(_:)``) and to every ``statusUpdates()`` stream.
public final class ReachabilityMonitor: Sendable {
    /// A monitor of the whole system (``ReachabilityTarget/system``), shared by the process.
    public static let shared = ReachabilityMonitor()

    /// What this monitor watches.
    public let target: ReachabilityTarget
    /// How it watches.
    public let configuration: ReachabilityConfiguration

    private struct State {
        var status: ReachabilityStatus = .unknown
        var handler: (@Sendable (ReachabilityStatus) -> Void)?
        var streams: [Int: AsyncStream<ReachabilityStatus>.Continuation] = [:]
        var nextStreamID = 0
        var diagnostics = ReachabilityDiagnostics()
        #if os(Linux)
        var loop: MonitorLoop?
        #endif
    }

    private let state = LockedValue(State())
    /// Serializes starting and stopping.
    private let lifecycle = NSLock()

    /// A monitor of `target`.
    public init(target: ReachabilityTarget = .system, configuration: ReachabilityConfiguration = ReachabilityConfiguration()) {
        self.target = target
        self.configuration = configuration
    }

    /// A monitor of one host, by name or IPv4/IPv6 address.
    public convenience init(host: String, configuration: ReachabilityConfiguration = ReachabilityConfiguration()) {
        self.init(target: .host(host), configuration: configuration)
    }

    /// The last status seen; ``ReachabilityStatus/unknown`` when not monitoring.
    public var status: ReachabilityStatus { state.withLock { $0.status } }
    /// Whether the last status is reachable (false when not monitoring).
    public var isReachable: Bool { status.isReachable }
    /// Whether the last status is reachable through Wi-Fi.
    public var isReachableViaWiFi: Bool { status.isReachableViaWiFi }
    /// Whether the last status is reachable through a cellular (WWAN) interface.
    public var isReachableViaWWAN: Bool { status.isReachableViaWWAN }
    /// Counters of events, evaluations, overflows and recoveries.
    public var diagnostics: ReachabilityDiagnostics { state.withLock { $0.diagnostics } }

    /// The descriptors the running monitor holds (none when stopped), for leak tests.
    var descriptorsInUse: [Int32] {
        #if os(Linux)
        return state.withLock { $0.loop }?.descriptorsInUse.withLock { $0 } ?? []
        #else
        return []
        #endif
    }

    /// Whether monitoring is running.
    public var isMonitoring: Bool {
        #if os(Linux)
        return state.withLock { $0.loop != nil }
        #else
        return false
        #endif
    }

    /// Sets (or, with `nil`, removes) the closure told of every status change, including the first
    /// status after monitoring starts. It runs on the monitor's thread: keep it short, and hand
    /// longer work to a task.
    public func setStatusChangeHandler(_ handler: (@Sendable (ReachabilityStatus) -> Void)?) {
        state.withLock { $0.handler = handler }
    }

    /// The statuses as an asynchronous sequence: the current status first when it is known, then
    /// every change, across stops and restarts, until the reader stops reading or the monitor is
    /// released. A sequence may be made before monitoring starts. A slow reader misses
    /// intermediate statuses, never the newest (``ReachabilityConfiguration/streamBufferSize``).
    public func statusUpdates() -> AsyncStream<ReachabilityStatus> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ReachabilityStatus.self,
            bufferingPolicy: .bufferingNewest(max(1, configuration.streamBufferSize))
        )
        let id: Int = state.withLock { state in
            if state.status != .unknown { continuation.yield(state.status) }
            let id = state.nextStreamID
            state.nextStreamID += 1
            state.streams[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Waits for a reachable status, up to `timeout`: the status, or `nil` when none came in time.
    /// A timeout beyond a century waits a century (Swift's clocks trap on a deadline they cannot
    /// count, such as `.seconds(Int64.max)` from now); zero or less does not wait for a change.
    public func waitUntilReachable(timeout: Duration) async -> ReachabilityStatus? {
        let timeout = min(timeout, Self.longestWait)
        let updates = statusUpdates()
        return await withTaskGroup(of: ReachabilityStatus?.self) { group in
            group.addTask {
                for await status in updates where status.isReachable { return status }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The longest ``waitUntilReachable(timeout:)`` waits: a century.
    static let longestWait = Duration.seconds(100 * 365 * 86_400)

    /// Starts monitoring; does nothing when already started. Returns once the monitor's sockets are
    /// open; the first status follows at once.
    /// - Throws: ``ReachabilityError`` when the routing-netlink socket cannot be opened, the
    ///   network namespace cannot be entered, or the platform has no implementation.
    public func startMonitoring() throws(ReachabilityError) {
        lifecycle.lock()
        defer { lifecycle.unlock() }
        #if os(Linux)
        guard state.withLock({ $0.loop == nil }) else { return }
        let loop = try MonitorLoop(
            target: target,
            configuration: configuration,
            report: { [weak self] status in self?.deliver(status) },
            count: { [weak self] update in self?.state.withLock { update(&$0.diagnostics) } }
        )
        state.withLock { $0.loop = loop }
        do throws(ReachabilityError) {
            try loop.start()
        } catch {
            state.withLock { $0.loop = nil }
            throw error
        }
        #else
        throw ReachabilityError(.unsupportedPlatform, detail: "only Linux's routing netlink is implemented")
        #endif
    }

    /// Stops monitoring: the thread ends, its sockets close, and the status returns to
    /// ``ReachabilityStatus/unknown`` without a notification (so the handler may call this).
    /// ``statusUpdates()`` sequences stay open and go on after a restart. Does nothing when not
    /// monitoring.
    public func stopMonitoring() {
        lifecycle.lock()
        defer { lifecycle.unlock() }
        #if os(Linux)
        guard let loop = state.withLock({ $0.loop }) else { return }
        loop.stop()
        state.withLock { state in
            state.loop = nil
            state.status = .unknown
        }
        #endif
    }

    /// The status of `target` right now, read once from the routing table of the process's
    /// network namespace, without monitoring.
    public static func currentStatus(of target: ReachabilityTarget) throws(ReachabilityError) -> ReachabilityStatus {
        #if os(Linux)
        let evaluator = ReachabilityEvaluator(target: target, classifier: InterfaceClassifier(interfacesFolder: "/sys/class/net"))
        return try evaluator.status(using: RoutingTable())
        #else
        throw ReachabilityError(.unsupportedPlatform, detail: "only Linux's routing netlink is implemented")
        #endif
    }

    /// Records a status from the monitor thread and, when it changed, tells the handler and the
    /// streams.
    private func deliver(_ status: ReachabilityStatus) {
        let listeners: (handler: (@Sendable (ReachabilityStatus) -> Void)?, streams: [AsyncStream<ReachabilityStatus>.Continuation])? =
            state.withLock { state in
                guard state.status != status, isMonitoringLocked(state) else { return nil }
                state.status = status
                state.diagnostics.statusChanges += 1
                return (state.handler, Array(state.streams.values))
            }
        guard let listeners else { return }
        listeners.handler?(status)
        for stream in listeners.streams { stream.yield(status) }
    }

    private func isMonitoringLocked(_ state: State) -> Bool {
        #if os(Linux)
        return state.loop != nil
        #else
        return false
        #endif
    }

    deinit {
        #if os(Linux)
        state.withLock { $0.loop }?.stop()
        #endif
        for stream in state.withLock({ Array($0.streams.values) }) { stream.finish() }
    }
}
