/// How a ``ReachabilityMonitor`` watches.
public struct ReachabilityConfiguration: Sendable, Hashable {
    /// After a routing event, the monitor waits until events have stopped for this long before it
    /// looks at the routing table again, so that a burst (an interface coming up with its
    /// addresses and routes, or a flapping route) gives one evaluation, not hundreds.
    public var quietPeriod: Duration = .milliseconds(50)
    /// …but never longer than this after the first event of a burst, so that a status is never
    /// older than this while events keep coming.
    public var maximumDelay: Duration = .milliseconds(250)
    /// A network namespace to monitor instead of the process's own, as a path such as
    /// `/run/netns/NAME` (what `ip netns add NAME` makes); entering one needs `CAP_SYS_ADMIN`.
    /// Interfaces seen in another namespace are classified from what the kernel says (loopback,
    /// Ethernet, other) without sysfs, which shows the process's own namespace.
    public var networkNamespace: String?
    /// The event socket's receive buffer in bytes, or `nil` for the system default. When a flood
    /// of events overflows it the kernel drops them (`ENOBUFS`); the monitor then reads the whole
    /// state again, so a small buffer costs extra evaluations, never a wrong status.
    public var receiveBufferSize: Int?
    /// How many statuses an ``ReachabilityMonitor/statusUpdates()`` stream keeps for a slow
    /// reader; older ones are dropped (the newest always stays), so memory stays bounded whatever
    /// the network does.
    public var streamBufferSize: Int = 8

    /// The defaults: 50 ms quiet period, 250 ms maximum delay, the process's namespace.
    public init() {}
}
