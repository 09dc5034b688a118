import Foundation

/// Whether a destination can be reached, and through which interface.
///
/// The status is `unknown` until a monitor has looked at the routing table once; after that it
/// is `notReachable` or `reachable(via:)`. *Reachable* means what it means on Apple platforms:
/// the kernel has a route to the destination through an interface that is up and has a carrier.
/// It does not promise that a packet will arrive, or that a server answers.
public enum ReachabilityStatus: Sendable, Hashable, CustomStringConvertible {
    /// Monitoring has not started (or has stopped): nothing is known.
    case unknown
    /// There is no route, or the route's interface is down.
    case notReachable
    /// There is a route through this interface, which is up and has a carrier.
    case reachable(via: NetworkInterface)

    /// Whether the destination is reachable through any interface.
    public var isReachable: Bool {
        if case .reachable = self { return true }
        return false
    }

    /// Whether the destination is reachable through a wireless LAN interface.
    public var isReachableViaWiFi: Bool { interface?.kind == .wifi }

    /// Whether the destination is reachable through a cellular (WWAN) interface.
    public var isReachableViaWWAN: Bool { interface?.kind == .cellular }

    /// The interface of a reachable status.
    public var interface: NetworkInterface? {
        if case .reachable(let interface) = self { return interface }
        return nil
    }

    /// A short description a user can read, such as "Reachable via WiFi".
    ///
    /// The text is looked up in the main bundle's `Reachability` strings table, so an application
    /// localizes it by shipping `Reachability.strings` with these English keys:
    /// "Unknown", "Not Reachable", "Reachable via WiFi", "Reachable via WWAN",
    /// "Reachable via Ethernet", "Reachable via Loopback", "Reachable via Other Interface".
    public var localizedDescription: String {
        NSLocalizedString(englishDescription, tableName: "Reachability", bundle: .main, comment: "A network reachability status")
    }

    /// The English text of ``localizedDescription``.
    public var englishDescription: String {
        switch self {
        case .unknown: return "Unknown"
        case .notReachable: return "Not Reachable"
        case .reachable(let interface):
            switch interface.kind {
            case .wifi: return "Reachable via WiFi"
            case .cellular: return "Reachable via WWAN"
            case .ethernet: return "Reachable via Ethernet"
            case .loopback: return "Reachable via Loopback"
            case .other: return "Reachable via Other Interface"
            }
        }
    }

    /// `unknown`, `notReachable`, or `reachable via KIND (NAME)`.
    public var description: String {
        switch self {
        case .unknown: return "unknown"
        case .notReachable: return "notReachable"
        case .reachable(let interface): return "reachable via \(interface.kind.rawValue) (\(interface.name))"
        }
    }
}
