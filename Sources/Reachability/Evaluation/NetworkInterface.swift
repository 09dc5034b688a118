/// A network interface that a route goes through.
public struct NetworkInterface: Sendable, Hashable, CustomStringConvertible {
    /// The interface name, such as `eth0` or `wlan0`.
    public var name: String
    /// The kernel's interface index.
    public var index: Int32
    /// What kind of link the interface is.
    public var kind: InterfaceKind

    /// Describes an interface.
    public init(name: String, index: Int32, kind: InterfaceKind) {
        self.name = name
        self.index = index
        self.kind = kind
    }

    /// `NAME (KIND)`.
    public var description: String { "\(name) (\(kind.rawValue))" }
}

/// The kind of link an interface is, as far as reachability cares.
public enum InterfaceKind: String, Sendable, Hashable, CaseIterable, Codable {
    /// A wireless LAN (on Linux: `/sys/class/net/IF/wireless` exists, or the device type is `wlan`).
    case wifi
    /// A cellular modem, WWAN (on Linux: device type `wwan`, or a WWAN driver such as `qmi_wwan`).
    case cellular
    /// A wired or virtual Ethernet link (hardware type Ethernet: NICs, veth, bridges, bonds).
    case ethernet
    /// The loopback interface.
    case loopback
    /// Anything else: tunnels, WireGuard, PPP, raw-IP links.
    case other
}
