import Foundation

/// Two network namespaces made for a test and removed after it: `monitored`, where a monitor
/// looks, and `peer`, its neighbour at the other end of a veth pair (`va` in `monitored`, `vb`
/// in `peer`). The test's own namespace is never touched.
///
/// Needs root (`ip netns add`); ``isAvailable`` says whether this machine allows it, so that tests
/// are reported as skipped, not passed, where it does not.
public final class NamespacePair: @unchecked Sendable {
    /// The namespace under observation.
    public let monitored: String
    /// The namespace on the other side of the veth pair.
    public let peer: String
    /// The monitored side's address on the veth link.
    public static let monitoredAddress = "10.77.0.2"
    /// The peer's address on the veth link, the gateway of the monitored side's routes.
    public static let peerAddress = "10.77.0.1"

    nonisolated(unsafe) private static var counter = 0
    private static let counterLock = NSLock()

    /// Whether namespaces can be made here (root, and `ip netns` works).
    public static let isAvailable: Bool = {
        guard getuid() == 0 else { return false }
        let probe = "tsec-probe-\(getpid())"
        guard (try? shell("ip netns add \(probe)")) != nil else { return false }
        _ = try? shell("ip netns del \(probe)")
        return true
    }()

    /// Makes both namespaces, with loopback up in the monitored one and nothing else.
    public init() throws {
        let number = Self.counterLock.withLock {
            Self.counter += 1
            return Self.counter
        }
        monitored = "tsec-\(getpid())-\(number)-a"
        peer = "tsec-\(getpid())-\(number)-b"
        _ = try shell("ip netns add \(monitored) && ip netns add \(peer) && ip -n \(monitored) link set lo up")
    }

    deinit {
        _ = try? shell("ip netns del \(monitored); ip netns del \(peer)")
    }

    /// The path a monitor enters: `/run/netns/NAME`.
    public var monitoredPath: String { "/run/netns/" + monitored }

    /// Joins the namespaces with the veth pair, gives both ends their /24 addresses and brings
    /// them up. No route beyond the link is added.
    public func connect() throws {
        _ = try shell("""
            ip link add va netns \(monitored) type veth peer name vb netns \(peer) && \
            ip -n \(monitored) addr add \(Self.monitoredAddress)/24 dev va && \
            ip -n \(peer) addr add \(Self.peerAddress)/24 dev vb && \
            ip -n \(peer) link set vb up && ip -n \(monitored) link set va up
            """)
    }

    /// Runs `ip ARGUMENTS` in the monitored namespace.
    @discardableResult
    public func ip(_ arguments: String) throws -> String { try shell("ip -n \(monitored) \(arguments)") }

    /// Runs `ip ARGUMENTS` in the peer namespace.
    @discardableResult
    public func peerIP(_ arguments: String) throws -> String { try shell("ip -n \(peer) \(arguments)") }

    /// Runs `commands` (one `ip` command per line, without `ip`) in the monitored namespace with
    /// `ip -batch`, as fast as the kernel takes them.
    public func batch(_ commands: [String]) throws {
        let file = NSTemporaryDirectory() + "tsec-batch-\(monitored).txt"
        try commands.joined(separator: "\n").appending("\n").write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try shell("ip -n \(monitored) -batch \(file)")
    }
}
