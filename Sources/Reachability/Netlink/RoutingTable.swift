#if os(Linux)
import CNetlink
import Glibc

/// Asks the kernel, over a request socket of its own, which route goes to an address and what an
/// interface is: the same questions `ip route get` and `ip link show` ask.
final class RoutingTable {
    private let socket: NetlinkSocket

    /// The request socket's descriptor (for leak tests).
    var descriptor: Int32 { socket.descriptor }
    private var sequence: UInt32 = 0
    private var buffer = [UInt8](repeating: 0, count: 32 * 1024)

    /// How a lookup ended.
    enum Route: Equatable {
        /// The kernel would send through this interface.
        case through(interfaceIndex: Int32)
        /// No usable route: the kernel's answer (an errno such as `ENETUNREACH`, or the route type
        /// of an unreachable, blackhole or prohibit route).
        case none(reason: String)
    }

    /// Opens the request socket in the calling thread's network namespace.
    init() throws(ReachabilityError) {
        socket = try NetlinkSocket(groups: 0, nonBlocking: false, receiveTimeoutMilliseconds: 2_000)
    }

    /// The route the kernel would use for `destination` (`ip route get`).
    func route(to destination: RouteDestination) throws(ReachabilityError) -> Route {
        let reply = try exchange { NetlinkRequest.route(to: destination, sequence: $0) }
        if let code = reply.errorCode {
            return .none(reason: String(cString: strerror(-code)))
        }
        let headerSize = MemoryLayout<rtmsg>.size
        guard reply.type == UInt16(RTM_NEWROUTE), reply.payload.count >= headerSize else {
            throw ReachabilityError(.netlinkFailed, detail: "unexpected answer type \(reply.type) to a route request")
        }
        let routeType = reply.payload[reply.payload.startIndex + 7]
        switch Int(routeType) {
        case Int(RTN_BLACKHOLE): return .none(reason: "a blackhole route")
        case Int(RTN_UNREACHABLE): return .none(reason: "an unreachable route")
        case Int(RTN_PROHIBIT): return .none(reason: "a prohibit route")
        case Int(RTN_THROW): return .none(reason: "a throw route")
        default: break
        }
        let attributes = NetlinkAttributes(reply.payload.dropFirst(headerSize))
        guard let index = attributes.uint32(Int(RTA_OIF.rawValue)) else {
            return .none(reason: "a route without an output interface")
        }
        return .through(interfaceIndex: Int32(bitPattern: index))
    }

    /// The interface with this index, or `nil` when it no longer exists.
    func link(index: Int32) throws(ReachabilityError) -> LinkInfo? {
        let reply = try exchange { NetlinkRequest.link(index: index, sequence: $0) }
        if reply.errorCode != nil { return nil }
        let headerSize = MemoryLayout<ifinfomsg>.size
        guard reply.type == UInt16(RTM_NEWLINK), reply.payload.count >= headerSize else {
            throw ReachabilityError(.netlinkFailed, detail: "unexpected answer type \(reply.type) to a link request")
        }
        let start = reply.payload.startIndex
        let attributes = NetlinkAttributes(reply.payload.dropFirst(headerSize))
        let linkKind = attributes[Int(IFLA_LINKINFO)].flatMap { NetlinkAttributes($0).string(Int(IFLA_INFO_KIND)) }
        return LinkInfo(
            index: index,
            name: attributes.string(Int(IFLA_IFNAME)) ?? "if\(index)",
            flags: reply.payload.readUInt32(at: start + 8),
            hardwareType: reply.payload.readUInt16(at: start + 2),
            linkKind: linkKind
        )
    }

    /// Sends a request and returns the answer that carries its sequence number, skipping any
    /// stale answer to an earlier request that timed out.
    private func exchange(_ makeRequest: (UInt32) -> [UInt8]) throws(ReachabilityError) -> NetlinkMessage {
        sequence &+= 1
        let expected = sequence
        try socket.send(makeRequest(expected))
        while true {
            switch socket.receive(into: &buffer) {
            case .datagram(let count):
                guard let messages = NetlinkMessage.split(buffer[0..<count]) else {
                    throw ReachabilityError(.netlinkFailed, detail: "a malformed answer from the kernel")
                }
                if let answer = messages.first(where: { $0.sequence == expected }) { return answer }
            case .nothingYet:
                throw ReachabilityError(.netlinkFailed, detail: "the kernel did not answer within 2 s")
            case .overflow:
                continue
            case .failed(let code):
                throw ReachabilityError(.netlinkFailed, errno: code)
            }
        }
    }
}

/// What the kernel says about an interface (`RTM_NEWLINK`).
struct LinkInfo: Sendable, Hashable {
    /// The interface index.
    var index: Int32
    /// The interface name (`IFLA_IFNAME`).
    var name: String
    /// `ifi_flags`: `IFF_UP`, `IFF_RUNNING`, `IFF_LOOPBACK`, …
    var flags: UInt32
    /// `ifi_type`: an `ARPHRD_*` hardware type.
    var hardwareType: UInt16
    /// The driver kind of a virtual link (`IFLA_INFO_KIND`: `veth`, `bridge`, `wireguard`, …).
    var linkKind: String?

    /// Up (administratively) and running (it has a carrier): traffic can leave through it.
    var isUsable: Bool { flags & UInt32(IFF_UP) != 0 && flags & UInt32(IFF_RUNNING) != 0 }

    /// The loopback interface.
    var isLoopback: Bool { flags & UInt32(IFF_LOOPBACK) != 0 || hardwareType == UInt16(ARPHRD_LOOPBACK) }
}
#endif
