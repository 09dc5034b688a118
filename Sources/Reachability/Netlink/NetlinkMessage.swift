#if os(Linux)
import CNetlink

/// One message of a routing-netlink datagram: its header fields and its payload.
struct NetlinkMessage {
    /// `nlmsg_type`: `RTM_NEWROUTE`, `NLMSG_ERROR`, …
    var type: UInt16
    /// `nlmsg_flags`.
    var flags: UInt16
    /// `nlmsg_seq`: the sequence number of the request this answers (0 for events).
    var sequence: UInt32
    /// Everything after the 16-byte header, up to `nlmsg_len`.
    var payload: ArraySlice<UInt8>

    /// The size of `struct nlmsghdr`.
    static let headerSize = MemoryLayout<nlmsghdr>.size

    /// Splits a datagram into its messages (each aligned to 4 bytes, `NLMSG_ALIGN`).
    /// - Returns: `nil` when a length field runs past the datagram or is shorter than a header.
    static func split(_ datagram: ArraySlice<UInt8>) -> [NetlinkMessage]? {
        var messages: [NetlinkMessage] = []
        var offset = datagram.startIndex
        while datagram.endIndex - offset >= headerSize {
            let length = Int(datagram.readUInt32(at: offset))
            guard length >= headerSize, length <= datagram.endIndex - offset else { return nil }
            messages.append(NetlinkMessage(
                type: datagram.readUInt16(at: offset + 4),
                flags: datagram.readUInt16(at: offset + 6),
                sequence: datagram.readUInt32(at: offset + 8),
                payload: datagram[(offset + headerSize)..<(offset + length)]
            ))
            offset += aligned(length)
        }
        return messages
    }

    /// The negative errno of an `NLMSG_ERROR` message (0 is an acknowledgement), or `nil` for any
    /// other message.
    var errorCode: Int32? {
        guard type == UInt16(NLMSG_ERROR), payload.count >= 4 else { return nil }
        return Int32(bitPattern: payload.readUInt32(at: payload.startIndex))
    }

    /// Rounds a length up to netlink's 4-byte alignment (`NLMSG_ALIGN`, `RTA_ALIGN`).
    static func aligned(_ length: Int) -> Int { (length + 3) & ~3 }
}

/// The attributes (`struct rtattr`: length, type, value) that follow a fixed-size header.
struct NetlinkAttributes {
    private var values: [UInt16: ArraySlice<UInt8>] = [:]

    /// Parses attributes, keeping the first of each type; a malformed attribute ends the list.
    init(_ bytes: ArraySlice<UInt8>) {
        var offset = bytes.startIndex
        while bytes.endIndex - offset >= 4 {
            let length = Int(bytes.readUInt16(at: offset))
            // The two top bits of the type are flags (NLA_F_NESTED, NLA_F_NET_BYTEORDER).
            let type = bytes.readUInt16(at: offset + 2) & 0x3FFF
            guard length >= 4, length <= bytes.endIndex - offset else { return }
            if values[type] == nil { values[type] = bytes[(offset + 4)..<(offset + length)] }
            offset += NetlinkMessage.aligned(length)
        }
    }

    /// The value of an attribute.
    subscript(type: Int) -> ArraySlice<UInt8>? { values[UInt16(type)] }

    /// A 32-bit attribute in host byte order.
    func uint32(_ type: Int) -> UInt32? {
        guard let value = self[type], value.count >= 4 else { return nil }
        return value.readUInt32(at: value.startIndex)
    }

    /// A NUL-terminated string attribute.
    func string(_ type: Int) -> String? {
        guard let value = self[type] else { return nil }
        return String(decoding: value.prefix { $0 != 0 }, as: UTF8.self)
    }
}

extension ArraySlice<UInt8> {
    /// A `UInt16` at an absolute index, in the host's byte order (netlink's).
    func readUInt16(at index: Int) -> UInt16 {
        self[index..<(index + 2)].withUnsafeBytes { $0.loadUnaligned(as: UInt16.self) }
    }

    /// A `UInt32` at an absolute index, in the host's byte order.
    func readUInt32(at index: Int) -> UInt32 {
        self[index..<(index + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }
}
#endif
