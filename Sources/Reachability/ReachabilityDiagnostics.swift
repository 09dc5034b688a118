/// Counters of what a monitor has done since it was made, for logs and tests.
public struct ReachabilityDiagnostics: Sendable, Hashable {
    /// Routing-netlink event messages read (link, address and route changes).
    public var eventsReceived = 0
    /// Times the routing table was consulted.
    public var evaluations = 0
    /// Times the status changed (each one delivered to the handler and the streams).
    public var statusChanges = 0
    /// Times the kernel reported that events were dropped (`ENOBUFS`), after which the state was
    /// read again.
    public var overflows = 0
    /// Times the event or request socket failed and was opened again.
    public var socketRecoveries = 0

    /// All zero.
    public init() {}
}
