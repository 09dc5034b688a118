import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOSOCKS
import Testing

@testable import SecureSession

@Suite("The SOCKS5 username/password handshake, byte by byte")
struct SOCKSPasswordHandshakeTests {
    /// A channel with the handshake for alice / pw to example.test:443, its tunnel's future,
    /// and the greeting it wrote.
    func start() throws -> (EmbeddedChannel, EventLoopFuture<Void>) {
        let channel = EmbeddedChannel()
        let tunnel = channel.eventLoop.makePromise(of: Void.self)
        try channel.pipeline.syncOperations.addHandler(SOCKSPasswordHandshake(
            user: "alice", password: "pw", target: .domain("example.test", port: 443), proxy: "socks5h://proxy:1080",
            targetName: "example.test:443", opening: TunnelOpening(tunnel)
        ))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1080)).wait()
        return (channel, tunnel.futureResult)
    }

    func written(_ channel: EmbeddedChannel) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readBytes(length: buffer.readableBytes) ?? [] }
        return bytes
    }

    /// The reason the tunnel failed with, `nil` when it did not (yet).
    func failure(_ tunnel: EventLoopFuture<Void>) -> String? {
        let reason = NIOLockedValueBox<String?>(nil)
        tunnel.whenFailure { error in reason.withLockedValue { $0 = "\(error)" } }
        return reason.withLockedValue { $0 }
    }

    @Test("the greeting offers none and username/password; the credentials go when chosen; the CONNECT names the host; the reply may come a byte at a time, and what follows it passes on")
    func wholeHandshake() throws {
        let (channel, tunnel) = try start()
        #expect(try written(channel) == [0x05, 0x02, 0x00, 0x02])
        try channel.writeInbound(ByteBuffer(bytes: [0x05, 0x02]))
        #expect(try written(channel) == [0x01, 5] + Array("alice".utf8) + [2] + Array("pw".utf8))
        try channel.writeInbound(ByteBuffer(bytes: [0x01, 0x00]))
        #expect(try written(channel) == [0x05, 0x01, 0x00, 0x03, 12] + Array("example.test".utf8) + [0x01, 0xBB])
        let isOpen = NIOLockedValueBox(false)
        tunnel.whenSuccess { isOpen.withLockedValue { $0 = true } }
        var opened: Bool { isOpen.withLockedValue { $0 } }
        let reply: [UInt8] = [0x05, 0x00, 0x00, 0x03, 4] + Array("host".utf8) + [0x00, 0x50] + Array("after".utf8)
        for byte in reply.dropLast(5) {
            #expect(!opened)
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
        }
        try channel.writeInbound(ByteBuffer(bytes: Array("after".utf8)))
        channel.embeddedEventLoop.run()
        #expect(opened)
        var passed: [UInt8] = []
        while var buffer = try channel.readInbound(as: ByteBuffer.self) { passed += buffer.readBytes(length: buffer.readableBytes) ?? [] }
        #expect(passed == Array("after".utf8))
        #expect(throws: (any Error).self) { try channel.pipeline.syncOperations.handler(type: SOCKSPasswordHandshake.self) }
    }

    @Test("refusals in words: no acceptable method, wrong credentials, a reply of failure, an unknown address type, not SOCKS5, closing first", arguments: [
        ([[0x05, 0xFF]], "it accepts neither no authentication nor a user name and password"),
        ([[0x04, 0x00]], "it did not answer in SOCKS5"),
        ([[0x05, 0x02], [0x01, 0x01]], "it refused the user name or password of alice"),
        ([[0x05, 0x00], [0x05, 0x05, 0x00, 0x01, 0, 0, 0, 0, 0, 0]], "connection refused by the server"),
        ([[0x05, 0x00], [0x05, 0x00, 0x00, 0x09]], "its reply has an address of unknown type 9"),
    ] as [([[UInt8]], String)])
    func refusals(answers: [[UInt8]], reason: String) throws {
        let (channel, tunnel) = try start()
        for answer in answers { try channel.writeInbound(ByteBuffer(bytes: answer)) }
        #expect(failure(tunnel) == "the SOCKS proxy socks5h://proxy:1080 did not open the tunnel to example.test:443: \(reason)")
        #expect(!channel.isActive)
    }

    @Test("a proxy that closes before the tunnel is open fails it so")
    func closedFirst() throws {
        let (channel, tunnel) = try start()
        try channel.writeInbound(ByteBuffer(bytes: [0x05]))
        channel.pipeline.fireChannelInactive()
        #expect(failure(tunnel) == "the SOCKS proxy socks5h://proxy:1080 closed the connection before opening the tunnel to example.test:443")
    }
}
