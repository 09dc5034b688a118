import NIOCore
import NIOSOCKS

/// A SOCKS5 `CONNECT` through a proxy that wants a user name and password (RFC 1928 with the
/// username/password method of RFC 1929), which swift-nio-extras' SOCKS client does not offer.
/// The client offers "no authentication" and "username/password", sends the credentials when
/// the proxy picks them, then asks for the tunnel and reads the reply; it leaves the pipeline once
/// the tunnel is open, handing on anything that came after the reply. A refusal, an answer that
/// is not SOCKS5, or the proxy closing first fails the tunnel in words.
final class SOCKSPasswordHandshake: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Phase {
        case choosingMethod
        case authenticating
        case connecting
        case open
    }

    private let user: String
    private let password: String
    private let target: SOCKSAddress
    private let proxy: String
    private let targetName: String
    private let opening: TunnelOpening
    private var phase = Phase.choosingMethod
    private var received = ByteBuffer()

    init(user: String, password: String, target: SOCKSAddress, proxy: String, targetName: String, opening: TunnelOpening) {
        self.user = user
        self.password = password
        self.target = target
        self.proxy = proxy
        self.targetName = targetName
        self.opening = opening
    }

    /// Refuses credentials that RFC 1929 cannot carry (each at most 255 bytes, a user not empty).
    static func check(user: String, password: String, proxy: String) throws {
        guard (1...255).contains(user.utf8.count), password.utf8.count <= 255 else {
            throw ProxyTunnelHandler.Refusal(description: "the SOCKS proxy \(proxy): a user name of 1 to 255 bytes and a password of at most 255 are all SOCKS5 can send")
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { greet(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        greet(context)
        context.fireChannelActive()
    }

    private func greet(_ context: ChannelHandlerContext) {
        // Version 5; two methods: none (0x00), username/password (0x02).
        send(context, [0x05, 0x02, 0x00, 0x02])
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        received.writeBuffer(&buffer)
        advance(context)
    }

    /// Goes as far as what has been received allows.
    private func advance(_ context: ChannelHandlerContext) {
        while !opening.isAnswered {
            switch phase {
            case .choosingMethod:
                guard let reply = received.readBytes(length: 2) else { return }
                guard reply[0] == 0x05 else { return fail(context, "it did not answer in SOCKS5") }
                switch reply[1] {
                case 0x00:
                    phase = .connecting
                    requestTunnel(context)
                case 0x02:
                    phase = .authenticating
                    send(context, [0x01, UInt8(user.utf8.count)] + Array(user.utf8) + [UInt8(password.utf8.count)] + Array(password.utf8))
                default:
                    return fail(context, "it accepts neither no authentication nor a user name and password")
                }
            case .authenticating:
                guard let reply = received.readBytes(length: 2) else { return }
                guard reply[0] == 0x01, reply[1] == 0x00 else { return fail(context, "it refused the user name or password of \(user)") }
                phase = .connecting
                requestTunnel(context)
            case .connecting:
                guard let length = Self.replyLength(received) else { return }
                guard let reply = received.readBytes(length: length) else { return }
                guard reply[0] == 0x05 else { return fail(context, "it did not answer in SOCKS5") }
                guard reply[1] == 0x00 else { return fail(context, SOCKSTunnel.describe(SOCKSServerReply(value: reply[1]))) }
                guard [0x01, 0x03, 0x04].contains(reply[3]) else { return fail(context, "its reply has an address of unknown type \(reply[3])") }
                // Nothing has gone through the tunnel yet: bytes after the reply are the proxy's.
                guard received.readableBytes == 0 else {
                    return opening.fail(context, TunnelOpening.earlyBytes(received.readableBytes, from: "the SOCKS proxy \(proxy)", after: "its reply", target: targetName))
                }
                phase = .open
                opening.open(context, removing: [], thenItself: self)
                return
            case .open:
                return
            }
        }
    }

    /// Asks for a `CONNECT` to the target.
    private func requestTunnel(_ context: ChannelHandlerContext) {
        var request: [UInt8] = [0x05, 0x01, 0x00]
        switch target {
        case .domain(let host, let port):
            guard (1...255).contains(host.utf8.count) else { return fail(context, "a name longer than 255 bytes cannot go through SOCKS5") }
            request += [0x03, UInt8(host.utf8.count)] + Array(host.utf8) + Self.bigEndian(port)
        case .address(let address):
            switch address {
            case .v4(let v4):
                request += [0x01] + withUnsafeBytes(of: v4.address.sin_addr) { Array($0) } + Self.bigEndian(address.port ?? 0)
            case .v6(let v6):
                request += [0x04] + withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) } + Self.bigEndian(address.port ?? 0)
            default:
                return fail(context, "\(targetName) is not an IP address or a name SOCKS5 can carry")
            }
        }
        send(context, request)
    }

    /// The length of the `CONNECT` reply at the front of `buffer`, once enough of it has come
    /// to say (version, reply, reserved, address type, address, port).
    private static func replyLength(_ buffer: ByteBuffer) -> Int? {
        guard let type = buffer.getInteger(at: buffer.readerIndex + 3, as: UInt8.self) else { return nil }
        switch type {
        case 0x01: return 4 + 4 + 2
        case 0x04: return 4 + 16 + 2
        case 0x03:
            guard let length = buffer.getInteger(at: buffer.readerIndex + 4, as: UInt8.self) else { return nil }
            return 4 + 1 + Int(length) + 2
        default:
            // No address to measure: the reply and its type say what went wrong.
            return 4
        }
    }

    private static func bigEndian(_ port: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: port >> 8), UInt8(truncatingIfNeeded: port)]
    }

    private func send(_ context: ChannelHandlerContext, _ bytes: [UInt8]) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    private func fail(_ context: ChannelHandlerContext, _ reason: String) {
        opening.fail(context, "the SOCKS proxy \(proxy) did not open the tunnel to \(targetName): \(reason)")
    }

    func channelInactive(context: ChannelHandlerContext) {
        opening.fail(context, "the SOCKS proxy \(proxy) closed the connection before opening the tunnel to \(targetName)")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context, "\(error)")
    }
}
