import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSOCKS
import NIOSSL
import NIOTLS
import TransportSecurity
import TransportSecurityNIO

extension Connector {
    /// What a SOCKS5 proxy is asked to connect to: an address as it is; for `socks5h` a name as it
    /// is (the proxy resolves it); for `socks5` a name resolved here first (off the event loops,
    /// on swift-nio's thread pool). `nil` for an HTTP proxy.
    static func socksAddress(of address: String, port: Int, through proxy: HTTPProxy, key: ConnectionKey) async throws -> SOCKSAddress? {
        guard !proxy.speaksHTTP else { return nil }
        if let literal = try? SocketAddress(ipAddress: address, port: port) { return .address(literal) }
        if proxy.kind == .socks5h {
            // The name travels in one length byte (RFC 1928 §5).
            guard address.utf8.count <= 255 else {
                throw SecureSessionError.invalidURL("\(key): a host name longer than 255 bytes cannot go through a SOCKS proxy")
            }
            return .domain(address, port: port)
        }
        do {
            return .address(try await NIOThreadPool.singleton.runIfActive { try SocketAddress.makeAddressResolvingHost(address, port: port) })
        } catch {
            throw SecureSessionError.connectionFailed("\(key): cannot resolve \(address) for the SOCKS proxy \(proxy): \(ConnectionFailureText.describe(error))")
        }
    }

    /// Asks `proxy` for a tunnel to `address:port` through swift-nio's HTTP/1 codec, removed
    /// once the tunnel is open; the future succeeds then.
    static func openTunnel(on channel: any Channel, through proxy: HTTPProxy, to address: String, port: Int) throws -> EventLoopFuture<Void> {
        let tunnel = channel.eventLoop.makePromise(of: Void.self)
        let encoder = HTTPRequestEncoder()
        // Bytes after the answer, in its read, come back as an error when the decoder leaves.
        let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .fireError))
        let target = address.inAuthorityForm + ":\(port)"
        try channel.pipeline.syncOperations.addHandler(encoder)
        try channel.pipeline.syncOperations.addHandler(decoder)
        try channel.pipeline.syncOperations.addHandler(
            ProxyTunnelHandler(target: target, authorization: proxy.authorization, proxy: "\(proxy)", codec: [encoder, decoder], tunnel: tunnel)
        )
        return tunnel.futureResult
    }
}
