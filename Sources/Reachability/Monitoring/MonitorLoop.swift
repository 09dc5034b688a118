#if os(Linux)
import CNetlink
import Foundation
import Glibc

/// The thread behind a started monitor: it waits on the routing-netlink event socket (no
/// polling), lets a burst of events settle, reads the routing table and reports the status.
final class MonitorLoop: @unchecked Sendable {
    /// Link, IPv4/IPv6 address and IPv4/IPv6 route changes.
    static let eventGroups = UInt32(RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE)

    private let target: ReachabilityTarget
    private let configuration: ReachabilityConfiguration
    private let report: @Sendable (ReachabilityStatus) -> Void
    private let count: @Sendable ((inout ReachabilityDiagnostics) -> Void) -> Void
    /// The eventfd that wakes the thread to stop; closed by the thread as its last act.
    private let wake: LockedValue<Int32>
    private let finished = DispatchSemaphore(value: 0)
    private let threadID = LockedValue<pthread_t?>(nil)
    /// The descriptors the thread holds open once started: the wake eventfd, the event socket
    /// and the request socket (for leak tests).
    let descriptorsInUse = LockedValue<[Int32]>([])

    init(
        target: ReachabilityTarget,
        configuration: ReachabilityConfiguration,
        report: @escaping @Sendable (ReachabilityStatus) -> Void,
        count: @escaping @Sendable ((inout ReachabilityDiagnostics) -> Void) -> Void
    ) throws(ReachabilityError) {
        let descriptor = cnetlink_wake_descriptor()
        guard descriptor >= 0 else { throw ReachabilityError(.netlinkUnavailable, errno: errno) }
        self.target = target
        self.configuration = configuration
        self.report = report
        self.count = count
        self.wake = LockedValue(descriptor)
    }

    /// Starts the thread and returns once its sockets are open (or throws why they are not).
    func start() throws(ReachabilityError) {
        let ready = LockedValue<Result<Void, ReachabilityError>?>(nil)
        let readySignal = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            threadID.withLock { $0 = pthread_self() }
            run { outcome in
                ready.withLock { $0 = outcome }
                readySignal.signal()
            }
            wake.withLock { descriptor in
                close(descriptor)
                descriptor = -1
            }
            finished.signal()
        }
        thread.name = "Reachability \(target)"
        thread.start()
        readySignal.wait()
        if case .failure(let error) = ready.withLock({ $0 }) {
            finished.wait()
            throw error
        }
    }

    /// Wakes the thread to stop and, unless called from the thread itself (from a status
    /// handler), waits until it has closed its sockets.
    func stop() {
        wake.withLock { descriptor in
            if descriptor >= 0 { _ = eventfd_write_one(descriptor) }
        }
        let onLoopThread = threadID.withLock { id in id.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        if !onLoopThread { finished.wait() }
    }

    /// The thread's work; every socket it opens is closed when it returns.
    private func run(ready: (Result<Void, ReachabilityError>) -> Void) {
        if let path = configuration.networkNamespace {
            do throws(ReachabilityError) { try Self.enterNamespace(path) } catch {
                ready(.failure(error))
                return
            }
        }
        var events: NetlinkSocket?
        var table: RoutingTable
        do throws(ReachabilityError) {
            events = try openEventSocket()
            table = try RoutingTable()
        } catch {
            ready(.failure(error))
            return
        }
        descriptorsInUse.withLock { $0 = [wake.withLock { $0 }] + [events?.descriptor, table.descriptor].compactMap { $0 } }
        defer { descriptorsInUse.withLock { $0 = [] } }
        ready(.success(()))
        let evaluator = ReachabilityEvaluator(
            target: target,
            classifier: InterfaceClassifier(interfacesFolder: configuration.networkNamespace == nil ? "/sys/class/net" : nil)
        )
        evaluate(evaluator, table: &table)

        let clock = ContinuousClock()
        var burstStarted: ContinuousClock.Instant?
        var lastEvent = clock.now
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var timeout: Int32 = -1
            if let burstStarted {
                let deadline = min(lastEvent + configuration.quietPeriod, burstStarted + configuration.maximumDelay)
                timeout = Self.milliseconds(until: deadline, from: clock.now)
            } else if events == nil {
                timeout = 1_000  // retry opening the event socket
            }
            let wakeDescriptor = wake.withLock { $0 }
            var descriptors = [
                pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: events?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            let polled = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if polled < 0, errno != EINTR { return }
            if descriptors[0].revents != 0 { return }
            if events == nil {
                events = try? openEventSocket()
                if events != nil { burstStarted = burstStarted ?? clock.now }
            } else if descriptors[1].revents != 0 {
                if drain(&events, buffer: &buffer) {
                    lastEvent = clock.now
                    burstStarted = burstStarted ?? lastEvent
                }
            }
            if let started = burstStarted {
                let now = clock.now
                if now >= lastEvent + configuration.quietPeriod || now >= started + configuration.maximumDelay {
                    burstStarted = nil
                    evaluate(evaluator, table: &table)
                }
            }
        }
    }

    /// Reads every queued event; true when anything changed. An overflow or a socket error counts as a change: what was
    /// missed is unknown, so the whole state is read again.
    private func drain(_ events: inout NetlinkSocket?, buffer: inout [UInt8]) -> Bool {
        var sawChange = false
        while let socket = events {
            switch socket.receive(into: &buffer) {
            case .datagram(let size):
                let messages = NetlinkMessage.split(buffer[0..<size])?.count ?? 1
                count { $0.eventsReceived += messages }
                sawChange = true
            case .nothingYet:
                return sawChange
            case .overflow:
                count { $0.overflows += 1 }
                sawChange = true
            case .failed:
                count { $0.socketRecoveries += 1 }
                events = try? openEventSocket()
                return true
            }
        }
        return sawChange
    }

    /// Reads the routing table and reports the status; a failed request socket is opened again
    /// once, and a table that cannot be read at all means not reachable.
    private func evaluate(_ evaluator: ReachabilityEvaluator, table: inout RoutingTable) {
        count { $0.evaluations += 1 }
        do throws(ReachabilityError) {
            report(try evaluator.status(using: table))
        } catch {
            count { $0.socketRecoveries += 1 }
            guard let fresh = try? RoutingTable() else {
                report(.notReachable)
                return
            }
            table = fresh
            report((try? evaluator.status(using: table)) ?? .notReachable)
        }
    }

    private func openEventSocket() throws(ReachabilityError) -> NetlinkSocket {
        try NetlinkSocket(groups: Self.eventGroups, nonBlocking: true, receiveBufferSize: configuration.receiveBufferSize)
    }

    /// Moves this thread into the network namespace at `path`.
    private static func enterNamespace(_ path: String) throws(ReachabilityError) {
        // `open` reads a C string: a NUL would end the path early, at another namespace.
        guard !path.utf8.contains(0) else {
            throw ReachabilityError(.namespaceUnavailable, detail: "\(path.replacingOccurrences(of: "\u{0}", with: "\\0")): the path holds a NUL character")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ReachabilityError(.namespaceUnavailable, detail: "\(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard cnetlink_enter_network_namespace(descriptor) == 0 else {
            throw ReachabilityError(.namespaceUnavailable, detail: "\(path): \(String(cString: strerror(errno)))")
        }
    }

    private static func milliseconds(until deadline: ContinuousClock.Instant, from now: ContinuousClock.Instant) -> Int32 {
        guard deadline > now else { return 0 }
        let (seconds, attoseconds) = (deadline - now).components
        return Int32(clamping: seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}

/// Adds one to an eventfd's counter, waking whoever polls it.
private func eventfd_write_one(_ descriptor: Int32) -> Int {
    var one: UInt64 = 1
    return write(descriptor, &one, MemoryLayout<UInt64>.size)
}
#endif
