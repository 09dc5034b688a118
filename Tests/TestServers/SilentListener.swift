import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP port on 127.0.0.1 where connecting never completes: a socket listening with a backlog
/// of zero that never accepts, its queue filled by connections of its own, so that the kernel
/// drops every further SYN and a client's connect waits until its own timeout.
public final class SilentListener: @unchecked Sendable {
    public let port: Int
    private var descriptors: [Int32] = []

    public struct SocketFailure: Error, CustomStringConvertible {
        public let description: String
    }

    public init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw SocketFailure(description: "socket: \(String(cString: strerror(errno)))") }
        descriptors.append(listener)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress -> Bool in
                bind(listener, socketAddress, length) == 0 && listen(listener, 0) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw SocketFailure(description: "bind/listen: \(String(cString: strerror(errno)))")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the accept queue (a backlog of zero holds one connection; a few more for margin).
        for _ in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard filler >= 0 else { continue }
            descriptors.append(filler)
            _ = fcntl(filler, F_SETFL, fcntl(filler, F_GETFL) | O_NONBLOCK)
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
            }
        }
        // Let the kernel finish the handshakes that fit in the queue.
        usleep(100_000)
    }

    public func stop() {
        for descriptor in descriptors { close(descriptor) }
        descriptors.removeAll()
    }

    deinit { stop() }
}
