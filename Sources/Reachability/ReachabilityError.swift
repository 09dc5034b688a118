#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why monitoring could not start or could not go on.
public struct ReachabilityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: String, Sendable, Hashable {
        /// The routing-netlink socket could not be opened or bound.
        case netlinkUnavailable
        /// The kernel did not answer a request, or answered something unreadable.
        case netlinkFailed
        /// The network namespace to monitor could not be entered.
        case namespaceUnavailable
        /// This platform has no implementation.
        case unsupportedPlatform
    }

    /// What went wrong.
    public var reason: Reason
    /// The details: the system error, the path, the answer.
    public var detail: String

    /// Makes an error.
    public init(_ reason: Reason, detail: String) {
        self.reason = reason
        self.detail = detail
    }

    init(_ reason: Reason, errno code: Int32) {
        self.init(reason, detail: String(cString: strerror(code)))
    }

    /// The reason and the details.
    public var description: String {
        switch reason {
        case .netlinkUnavailable: return "cannot open a routing-netlink socket: \(detail)"
        case .netlinkFailed: return "routing-netlink request failed: \(detail)"
        case .namespaceUnavailable: return "cannot enter the network namespace: \(detail)"
        case .unsupportedPlatform: return "reachability monitoring is not available on this platform: \(detail)"
        }
    }
}
