#if os(Linux)
import CNetlink

/// The requests the monitor sends to the kernel: "which route goes to this address" and "what is
/// this interface".
enum NetlinkRequest {
    /// `RTM_GETROUTE` for one destination, answered with the route the kernel would use
    /// (`ip route get ADDRESS`), or with an error such as `ENETUNREACH`.
    static func route(to destination: RouteDestination, sequence: UInt32) -> [UInt8] {
        var routeHeader = [UInt8](repeating: 0, count: MemoryLayout<rtmsg>.size)
        routeHeader[0] = destination.family
        routeHeader[1] = UInt8(destination.bytes.count * 8)  // rtm_dst_len: a host route
        let attribute = self.attribute(type: UInt16(RTA_DST.rawValue), value: destination.bytes)
        return message(type: UInt16(RTM_GETROUTE), sequence: sequence, payload: routeHeader + attribute)
    }

    /// `RTM_GETLINK` for one interface index.
    static func link(index: Int32, sequence: UInt32) -> [UInt8] {
        var linkHeader = [UInt8](repeating: 0, count: MemoryLayout<ifinfomsg>.size)
        withUnsafeBytes(of: index) { linkHeader.replaceSubrange(4..<8, with: $0) }
        return message(type: UInt16(RTM_GETLINK), sequence: sequence, payload: linkHeader)
    }

    private static func message(type: UInt16, sequence: UInt32, payload: [UInt8]) -> [UInt8] {
        let length = UInt32(NetlinkMessage.headerSize + payload.count)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(length))
        append(length, to: &bytes)
        append(type, to: &bytes)
        append(UInt16(NLM_F_REQUEST), to: &bytes)
        append(sequence, to: &bytes)
        append(UInt32(0), to: &bytes)  // nlmsg_pid: the kernel fills in ours
        return bytes + payload
    }

    private static func attribute(type: UInt16, value: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        append(UInt16(4 + value.count), to: &bytes)
        append(type, to: &bytes)
        bytes += value
        bytes += [UInt8](repeating: 0, count: NetlinkMessage.aligned(bytes.count) - bytes.count)
        return bytes
    }

    /// Appends an integer in the host's byte order (netlink's).
    private static func append<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value) { bytes += $0 }
    }
}
#endif
