import NIOCore
import NIOSOCKS

/// Opens a tunnel through a SOCKS5 proxy with swift-nio-extras' `SOCKSClientHandler` (no
/// authentication, `CONNECT`; with a user, ``SOCKSPasswordHandshake``), and takes it out of the pipeline once the proxy has connected, so
/// that TLS (or cleartext HTTP/1.1) to the server runs through the tunnel. A refusal, an error
/// or the proxy closing first fails the tunnel with the proxy's reason in words.
enum SOCKSTunnel {
    /// Starts the SOCKS handshake on `channel` for `target`; the future succeeds once the tunnel
    /// is open and the pipeline is clear. A proxy with a user goes through
    /// ``SOCKSPasswordHandshake`` (swift-nio-extras' client offers no authentication), whose
    /// credentials the connector has checked before connecting.
    static func open(on channel: any Channel, through proxy: HTTPProxy, to target: SOCKSAddress, named targetName: String) throws -> EventLoopFuture<Void> {
        let tunnel = channel.eventLoop.makePromise(of: Void.self)
        let opening = TunnelOpening(tunnel)
        do {
            if let user = proxy.user {
                try channel.pipeline.syncOperations.addHandler(SOCKSPasswordHandshake(
                    user: user, password: proxy.password ?? "", target: target, proxy: "\(proxy)", targetName: targetName, opening: opening
                ))
            } else {
                let client = SOCKSClientHandler(targetAddress: target)
                try channel.pipeline.syncOperations.addHandler(client)
                try channel.pipeline.syncOperations.addHandler(Watcher(client: client, proxy: "\(proxy)", target: targetName, opening: opening))
            }
        } catch {
            tunnel.fail(error)
            throw error
        }
        return tunnel.futureResult
    }

    /// Waits for the proxy's answer after the SOCKS client handler.
    private final class Watcher: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer

        private let client: SOCKSClientHandler
        private let proxy: String
        private let target: String
        private let opening: TunnelOpening

        init(client: SOCKSClientHandler, proxy: String, target: String, opening: TunnelOpening) {
            self.client = client
            self.proxy = proxy
            self.target = target
            self.opening = opening
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            guard event is SOCKSProxyEstablishedEvent else {
                context.fireUserInboundEventTriggered(event)
                return
            }
            opening.open(context, removing: [client], thenItself: self)
        }

        /// Bytes the SOCKS handler hands over as it leaves: they followed the proxy's reply.
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data).readableBytes
            guard bytes > 0 else { return }
            opening.fail(context, TunnelOpening.earlyBytes(bytes, from: "the SOCKS proxy \(proxy)", after: "its reply", target: target))
        }

        func channelInactive(context: ChannelHandlerContext) {
            opening.fail(context, "the SOCKS proxy \(proxy) closed the connection before opening the tunnel to \(target)")
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            opening.fail(context, "the SOCKS proxy \(proxy) did not open the tunnel to \(target): \(Self.describe(error))")
        }

        /// A SOCKS error in words: the proxy's reply (RFC 1928 §6), or what was wrong with it.
        static func describe(_ error: any Error) -> String {
            switch error {
            case let failed as SOCKSError.ConnectionFailed:
                return SOCKSTunnel.describe(failed.reply)
            case is SOCKSError.NoValidAuthenticationMethod, is SOCKSError.InvalidAuthenticationSelection:
                return "it wants a user name and password (socks5://user:password@host)"
            case is SOCKSError.InvalidProtocolVersion:
                return "it did not answer in SOCKS5"
            default:
                return "\(error)"
            }
        }
    }

    /// A SOCKS5 server's refusal in words (RFC 1928 §6).
    static func describe(_ reply: SOCKSServerReply) -> String {
        let replies: [SOCKSServerReply: String] = [
            .serverFailure: "general SOCKS server failure", .notAllowed: "connection not allowed by its rules",
            .networkUnreachable: "network unreachable", .hostUnreachable: "host unreachable",
            .refused: "connection refused by the server", .ttlExpired: "TTL expired",
            .commandUnsupported: "CONNECT not supported", .addressUnsupported: "address type not supported",
        ]
        return replies[reply] ?? "reply \(reply.value)"
    }
}
