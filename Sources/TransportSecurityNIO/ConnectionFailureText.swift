import NIOCore
import NIOPosix

/// A connection failure from swift-nio in words a person can act on: "cannot resolve
/// api.example.com: Name or service not known", "127.0.0.1:8443 refused the connection", instead
/// of the nested descriptions of `NIOConnectionError`.
package enum ConnectionFailureText {
    /// The failure in words.
    package static func describe(_ error: any Error) -> String {
        switch error {
        case let failure as NIOConnectionError:
            if failure.connectionErrors.isEmpty, let dns = failure.dnsAError ?? failure.dnsAAAAError {
                return "cannot resolve \(failure.host): \(describe(dns))"
            }
            guard !failure.connectionErrors.isEmpty else { return "cannot connect to \(endpoint(failure.host, failure.port))" }
            return failure.connectionErrors.map { attempt in
                "\(describe(attempt.error)) at \(address(attempt.target))"
            }.joined(separator: "; ")
        case let unknown as SocketAddressError.UnknownHost:
            return unknown.errorDescription
        case ChannelError.connectTimeout(let limit):
            return "no connection within \(limit) (the server does not answer)"
        case let io as IOError:
            switch io.errnoCode {
            case ECONNREFUSED: return "the connection was refused"
            case ECONNRESET: return "the server reset the connection (ECONNRESET)"
            case EPIPE: return "the server closed the connection while the request was being written (EPIPE)"
            default: return String(cString: strerror(io.errnoCode))
            }
        default:
            return String(describing: error)
        }
    }

    /// `192.0.2.1:443` or `[2001:db8::1]:443`.
    private static func address(_ target: SocketAddress) -> String {
        guard let ip = target.ipAddress, let port = target.port else { return "\(target)" }
        return endpoint(ip, port)
    }

    /// `host:port`, with an IPv6 address in brackets (`[::1]:443`) so the port stands apart.
    package static func endpoint(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
