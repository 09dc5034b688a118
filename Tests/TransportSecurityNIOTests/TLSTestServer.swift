import Foundation
import NIOCore
import NIOTLS
import NIOPosix
import NIOSSL
import PKIBuilder
import TransportSecurity
import TransportSecurityNIO

/// Echoes what it reads.
final class EchoHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(data, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Answers what it reads prefixed with who the client is: the common name of the certificate it
/// presented, or `anonymous`.
final class ClientNameEchoHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let tls = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
        let name = tls?.peerCertificate
            .flatMap { try? DERCertificate(derBytes: $0.toDERBytes()).subjectSummary } ?? "anonymous"
        let reply = ByteBuffer(string: "\(name):" + String(buffer: unwrapInboundIn(data)))
        context.writeAndFlush(wrapOutboundOut(reply), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Answers what it reads prefixed with who the verified client is (`verifiedPeerIdentity`):
/// its ``PeerIdentity`` and the subjects of the path to its anchor, `identity|subject > … >
/// anchor`, from the chain the verifier validated, or, on a resumed session, the one it
/// remembers (when the handler is given the verifier); `unverified` when the client presented no
/// certificate, `unknown` when it presented one no validated path vouches for (a resumed
/// session the handler cannot vouch for, an evaluator that trusted without validating).
final class VerifiedPeerEchoHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let verifier: PeerTrustVerifier?

    init(verifier: PeerTrustVerifier?) { self.verifier = verifier }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let operations = context.pipeline.syncOperations
        let who: String
        do {
            if let identity = try operations.verifiedPeerIdentity(verifiedBy: verifier) {
                let validated = (try? operations.nioSSL_peerValidatedCertificateChain())?.compactMap { try? DERCertificate(derBytes: $0.toDERBytes()) }
                let remembered = (try? operations.nioSSL_peerCertificate()).flatMap { $0 }.flatMap { try? verifier?.rememberedPath(forPeerCertificate: $0.toDERBytes()) }
                who = "\(identity)|" + (validated ?? remembered ?? []).map(\.subjectSummary).joined(separator: " > ")
            } else {
                who = "unverified"
            }
        } catch is PeerIdentityUnavailable {
            who = "unknown"
        } catch {
            who = "error"
        }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "\(who):" + String(buffer: unwrapInboundIn(data)))), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// A TLS echo server on 127.0.0.1 presenting a chosen chain; with a ``PeerTrustVerifier``, it
/// asks for client certificates (required unless `clientCertificates` says otherwise) and
/// prefixes its echo with the client's name (with `handsOnValidatedChain`, the verifier hands
/// swift-nio-ssl the path it validated and the echo names the verified identity and its path).
final class TLSTestServer: Sendable {
    let channel: any Channel
    var port: Int { channel.localAddress?.port ?? 0 }

    convenience init(
        chain: [IssuedCertificate],
        clientVerifier: PeerTrustVerifier? = nil,
        clientCertificates: ClientCertificateRequirement = .required,
        handsOnValidatedChain: Bool = false,
        remembersResumedPeers: Bool = true
    ) async throws {
        let identity = try ClientIdentity(certificateChainPEM: chain.pemBundle, privateKeyPEM: chain[0].privateKeyPEM)
        try await self.init(
            configuration: .transportSecurityServer(identity: identity, clientCertificates: clientVerifier == nil ? .none : clientCertificates),
            clientVerifier: clientVerifier,
            handsOnValidatedChain: handsOnValidatedChain,
            remembersResumedPeers: remembersResumedPeers
        )
    }

    /// A server made from its TLS configuration.
    init(
        configuration: TLSConfiguration, clientVerifier: PeerTrustVerifier? = nil, handsOnValidatedChain: Bool = false, remembersResumedPeers: Bool = true
    ) async throws {
        let context = try NIOSSLContext(configuration: configuration)
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    switch (clientVerifier, handsOnValidatedChain) {
                    case (nil, _):
                        try operations.addHandlers(NIOSSLServerHandler(context: context), EchoHandler())
                    case (let verifier?, false):
                        try operations.addHandlers(
                            NIOSSLServerHandler(context: context, customVerificationCallback: verifier.makeVerificationCallback()),
                            ClientNameEchoHandler()
                        )
                    case (let verifier?, true):
                        try operations.addHandlers(
                            NIOSSLServerHandler(context: context, customVerificationCallbackWithMetadata: verifier.makeVerificationCallbackWithMetadata()),
                            VerifiedPeerEchoHandler(verifier: remembersResumedPeers ? verifier : nil)
                        )
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }

    func stop() async {
        try? await channel.close()
    }
}

/// Completes when the TLS handshake completes, fails when it fails or the connection closes first.
final class HandshakeProbe: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    let handshake: EventLoopPromise<Void>
    let echo: EventLoopPromise<String>

    init(eventLoop: any EventLoop) {
        handshake = eventLoop.makePromise()
        echo = eventLoop.makePromise()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            handshake.succeed()
            context.writeAndFlush(NIOAny(ByteBuffer(string: "ping")), promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        echo.succeed(String(buffer: unwrapInboundIn(data)))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        handshake.fail(error)
        echo.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        handshake.fail(ChannelError.ioOnClosedChannel)
        echo.fail(ChannelError.ioOnClosedChannel)
    }
}

struct ConnectionOutcome {
    /// Whether the TLS handshake completed.
    let handshakeCompleted: Bool
    /// What the server echoed, if data flowed.
    let echoed: String?
    /// Whether the connection was closed by the time the outcome was known.
    let closed: Bool
    /// The decision the verifier made, if it made one.
    let decision: TrustDecision?
}

/// Connects to 127.0.0.1:`port` with TransportSecurity verifying the server, offering
/// `identity`, or the one `identityProvider` chooses when the server asks.
func connect(
    port: Int,
    verifier: PeerTrustVerifier,
    identity: ClientIdentity? = nil,
    identityProvider: ClientIdentityProvider? = nil
) async throws -> ConnectionOutcome {
    let context = try NIOSSLContext(
        configuration: identityProvider.map { .transportSecurityClient(identityProvider: $0) } ?? .transportSecurityClient(identity: identity)
    )
    let recorder = DecisionRecorder()
    // Keep the probe: a rejected connection may be gone before it could be looked up.
    let probes = ProbeBox()
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let handler = try NIOSSLClientHandler(
                    context: context,
                    serverHostname: verifier.serverNameIndication,
                    customVerificationCallback: verifier.makeVerificationCallback(onDecision: recorder.record)
                )
                let probe = HandshakeProbe(eventLoop: channel.eventLoop)
                probes.probe = probe
                try channel.pipeline.syncOperations.addHandler(handler)
                try channel.pipeline.syncOperations.addHandler(probe)
            }
        }
        .connect(host: "127.0.0.1", port: port)
        .get()
    guard let probe = probes.probe else { throw ChannelError.inappropriateOperationForState }
    let handshakeCompleted = (try? await probe.handshake.futureResult.get()) != nil
    let echoed = try? await probe.echo.futureResult.get()
    if handshakeCompleted { try? await channel.close() }
    // A rejected connection must close by itself.
    let closed = await withTaskGroup(of: Bool.self) { group in
        group.addTask { (try? await channel.closeFuture.get()) != nil }
        group.addTask {
            try? await Task.sleep(for: .seconds(5))
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
    return ConnectionOutcome(handshakeCompleted: handshakeCompleted, echoed: echoed, closed: closed, decision: recorder.last)
}

final class DecisionRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var decisions: [TrustDecision] = []
    func record(_ decision: TrustDecision) { lock.withLock { decisions.append(decision) } }
    var last: TrustDecision? { lock.withLock { decisions.last } }
}

/// Hands the probe made in a channel initializer to the test.
final class ProbeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: HandshakeProbe?
    var probe: HandshakeProbe? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
