#if os(Linux)
import CNetlink
import Glibc

/// A `NETLINK_ROUTE` socket: one subscribed to routing events, or one for requests.
///
/// The socket is made in the calling thread's network namespace and closed when the value goes
/// away.
final class NetlinkSocket {
    /// The file descriptor.
    let descriptor: Int32

    /// What a receive gave.
    enum Received {
        /// A datagram of this many bytes is in the buffer.
        case datagram(Int)
        /// Nothing to read (non-blocking socket), or the receive timeout passed.
        case nothingYet
        /// The kernel dropped messages because the receive buffer was full (`ENOBUFS`): what was
        /// missed is unknown, so the state must be read again.
        case overflow
        /// Any other error, with its errno.
        case failed(Int32)
    }

    /// Opens and binds a routing-netlink socket.
    /// - Parameters:
    ///   - groups: The multicast groups to join (`RTMGRP_*`), 0 for a request socket.
    ///   - nonBlocking: Whether receives return at once when nothing is queued.
    ///   - receiveBufferSize: A receive buffer size to ask for, or `nil` for the system's.
    ///   - receiveTimeoutMilliseconds: For a blocking socket, how long a receive waits.
    init(groups: UInt32, nonBlocking: Bool, receiveBufferSize: Int? = nil, receiveTimeoutMilliseconds: Int = 0) throws(ReachabilityError) {
        var type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        let descriptor = socket(AF_NETLINK, type, NETLINK_ROUTE)
        guard descriptor >= 0 else { throw ReachabilityError(.netlinkUnavailable, errno: errno) }
        if let receiveBufferSize, cnetlink_set_receive_buffer(descriptor, Int32(receiveBufferSize)) != 0 {
            let code = errno
            close(descriptor)
            throw ReachabilityError(.netlinkUnavailable, errno: code)
        }
        if receiveTimeoutMilliseconds > 0 {
            var timeout = timeval(tv_sec: receiveTimeoutMilliseconds / 1000, tv_usec: (receiveTimeoutMilliseconds % 1000) * 1000)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = groups
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw ReachabilityError(.netlinkUnavailable, errno: code)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Sends one request to the kernel.
    func send(_ request: [UInt8]) throws(ReachabilityError) {
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        let sent = request.withUnsafeBytes { bytes in
            withUnsafePointer(to: &kernel) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                }
            }
        }
        guard sent == request.count else { throw ReachabilityError(.netlinkFailed, errno: errno) }
    }

    /// Receives one datagram into `buffer`.
    func receive(into buffer: inout [UInt8]) -> Received {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return .datagram(count) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .nothingYet
            case ENOBUFS: return .overflow
            case let code: return .failed(code)
            }
        }
    }
}
#endif
