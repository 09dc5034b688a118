import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import TransportSecurity
import TransportSecurityNIO

/// One HTTP/1.1 connection (TLS or cleartext), kept alive between requests.
///
/// A worker task owns the channel through `NIOAsyncChannel.executeThenClose` and runs the
/// requests queued on the connection one after the other; callers wait for their response head
/// while the body streams into their sink.
final class HTTP1Connection: Sendable {
    /// Receives each chunk of a response body, with the response's head.
    typealias BodySink = @Sendable (HTTPResponseHead, ByteBuffer) async throws -> Void

    struct ResponseHead: Sendable {
        let head: HTTPResponseHead
        let reusable: Bool
    }

    private struct Exchange: Sendable {
        let head: HTTPRequestHead
        let body: ByteBuffer?
        let sink: BodySink
        let completion: @Sendable (Result<ResponseHead, any Error>) -> Void
    }

    let key: ConnectionKey
    /// The decision that trusted the server (TLS connections).
    let trustDecision: TrustDecision?
    private let channel: any Channel
    private let exchanges: AsyncStream<Exchange>.Continuation
    private let closed = LockedFlag()
    private let idleExpiry = NIOLockedValueBox<Scheduled<Void>?>(nil)

    private init(key: ConnectionKey, channel: any Channel, trustDecision: TrustDecision?, exchanges: AsyncStream<Exchange>.Continuation) {
        self.key = key
        self.channel = channel
        self.trustDecision = trustDecision
        self.exchanges = exchanges
    }

    /// Whether the connection can take another request.
    var isUsable: Bool { !closed.isSet && channel.isActive }

    /// Connects, completes the TLS handshake (the verifier deciding the server), and starts the
    /// worker.
    static func connect(
        key: ConnectionKey,
        configuration: SecureSessionConfiguration,
        tlsContext: NIOSSLContext,
        group: any EventLoopGroup,
        deadline: Deadline
    ) async throws -> HTTP1Connection {
        let decisions = DecisionBox()
        // With a challenge handler, the server's certificate request goes to it, through a
        // context of the connection's own.
        let certificateChallenge = key.isSecure ? key.handler.map {
            ClientCertificateChallenge(handler: $0, host: key.host, port: key.port, sessionIdentity: configuration.clientIdentity)
        } : nil
        let sslContext: NIOSSLContext?
        do {
            sslContext = key.isSecure ? try certificateChallenge?.makeTLSContext() ?? tlsContext : nil
        } catch {
            throw SecureSessionError.tlsFailure("cannot create the TLS context: \(error)")
        }
        let verifier: PeerTrustVerifier? =
            key.isSecure
            ? PeerTrustVerifier(
                evaluator: key.evaluator,
                host: key.host,
                systemStore: configuration.systemStore,
                evaluationTime: configuration.evaluationTime,
                // A handler's answer is not a policy's: it is asked for every connection.
                cache: key.evaluator.base is ServerTrustChallengeEvaluator ? nil : configuration.decisionCache,
                logger: configuration.logger
            ) : nil
        // Connecting may take neither longer than the connect timeout nor past the request's deadline.
        let connectLimit = min(configuration.connectTimeout, max(deadline.remaining, .milliseconds(1)))
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.nanoseconds(connectLimit.nanoseconds))
        let (asyncChannel, handshake): (NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>, EventLoopFuture<Void>)
        do {
            let address = configuration.addressOverrides.address(host: key.host, port: key.port) ?? key.host
            (asyncChannel, handshake) = try await bootstrap.connect(host: address, port: key.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handshake = channel.eventLoop.makePromise(of: Void.self)
                    do {
                        if let sslContext, let verifier {
                            let tls = try NIOSSLClientHandler(
                                context: sslContext,
                                serverHostname: verifier.serverNameIndication,
                                customVerificationCallback: verifier.makeVerificationCallback(onDecision: decisions.record)
                            )
                            try channel.pipeline.syncOperations.addHandler(tls)
                            try channel.pipeline.syncOperations.addHandler(HandshakeWatcher(promise: handshake))
                        } else {
                            handshake.succeed()
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        let wrapped = try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                        return (wrapped, handshake.futureResult)
                    } catch {
                        handshake.fail(error)
                        throw error
                    }
                }
            }
        } catch {
            throw SecureSessionError.connectionFailed("\(key): \(error)")
        }
        do {
            let channel = asyncChannel.channel
            try await deadline.interrupting(with: { channel.close(promise: nil) }) {
                try await withDeadline(connectLimit, on: channel.eventLoop, onTimeout: { channel.close(promise: nil) }) { _ in
                    try await handshake.get()
                }
            }
        } catch {
            // The async channel must be closed through its owner, or NIO traps on its writer.
            try? await asyncChannel.executeThenClose { _, _ in }
            if let error = error as? SecureSessionError { throw error }
            if let certificateChallenge, certificateChallenge.wasCancelled {
                throw SecureSessionError.challengeCancelled(certificateChallenge.space)
            }
            if let decision = decisions.last, !decision.isTrusted {
                let space = ProtectionSpace(host: key.host, port: key.port, isSecure: true, realm: nil, method: .serverTrust)
                switch decision.decidedBy {
                case ServerTrustChallengeEvaluator.cancelled: throw SecureSessionError.challengeCancelled(space)
                case ServerTrustChallengeEvaluator.rejectedSpace: throw SecureSessionError.protectionSpaceRejected(space)
                default: throw SecureSessionError.trustRejected(decision)
                }
            }
            throw SecureSessionError.tlsFailure("\(key): \(error)")
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Exchange.self)
        let connection = HTTP1Connection(key: key, channel: asyncChannel.channel, trustDecision: decisions.last, exchanges: continuation)
        Task { await connection.work(asyncChannel, stream) }
        return connection
    }

    /// Sends a request and waits for the response head; the body goes to `sink` before this
    /// returns.
    func execute(head: HTTPRequestHead, body: ByteBuffer?, sink: @escaping BodySink) async throws -> ResponseHead {
        guard isUsable else { throw SecureSessionError.connectionFailed("\(key): the connection is closed") }
        return try await withCheckedThrowingContinuation { continuation in
            let exchange = Exchange(head: head, body: body, sink: sink) { result in continuation.resume(with: result) }
            if case .terminated = exchanges.yield(exchange) {
                continuation.resume(throwing: SecureSessionError.connectionFailed("\(key): the connection is closed"))
            }
        }
    }

    /// Runs `expire` after `timeout` unless the connection is leased again first.
    func scheduleIdleExpiry(after timeout: Duration, _ expire: @escaping @Sendable () -> Void) {
        let scheduled = channel.eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds)) { expire() }
        idleExpiry.withLockedValue { $0 = scheduled }
    }

    /// Stops the idle timer: the connection is in use again.
    func cancelIdleExpiry() {
        idleExpiry.withLockedValue { scheduled in
            scheduled?.cancel()
            scheduled = nil
        }
    }

    /// Closes the connection; a request in flight fails.
    func close() {
        closed.set()
        exchanges.finish()
        channel.close(promise: nil)
    }

    private func work(
        _ asyncChannel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>,
        _ stream: AsyncStream<Exchange>
    ) async {
        var pending: Exchange?
        do {
            try await asyncChannel.executeThenClose { inbound, outbound in
                var responses = inbound.makeAsyncIterator()
                for await exchange in stream {
                    pending = exchange
                    try await outbound.write(.head(exchange.head))
                    if let body = exchange.body { try await outbound.write(.body(.byteBuffer(body))) }
                    try await outbound.write(.end(nil))
                    let head = try await Self.readResponse(&responses, into: exchange.sink)
                    pending = nil
                    let reusable = head.isKeepAlive
                    exchange.completion(.success(ResponseHead(head: head, reusable: reusable)))
                    if !reusable { break }
                }
            }
        } catch {
            pending?.completion(.failure(SecureSessionError.connectionFailed("\(key): \(error)")))
            pending = nil
        }
        pending?.completion(.failure(SecureSessionError.connectionFailed("\(key): the connection closed")))
        closed.set()
        exchanges.finish()
        // Requests queued behind a broken connection fail instead of waiting forever.
        for await exchange in stream {
            exchange.completion(.failure(SecureSessionError.connectionFailed("\(key): the connection closed")))
        }
    }

    private static func readResponse(
        _ responses: inout NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator,
        into sink: BodySink
    ) async throws -> HTTPResponseHead {
        var head: HTTPResponseHead?
        while let part = try await responses.next() {
            switch part {
            case .head(let received):
                // 1xx responses (100 Continue, 103 Early Hints) precede the real one.
                if received.status.code < 200 && received.status != .switchingProtocols { continue }
                head = received
            case .body(let buffer):
                guard let head else { throw SecureSessionError.invalidResponse("a body came before the response head") }
                try await sink(head, buffer)
            case .end:
                guard let head else { throw SecureSessionError.invalidResponse("a response ended before its head") }
                return head
            }
        }
        throw SecureSessionError.connectionFailed("the server closed the connection before the response ended")
    }
}

/// Completes a promise when the TLS handshake completes, fails it when the channel errors or
/// closes first.
private final class HandshakeWatcher: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny
    private let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            promise.succeed()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    /// A channel that never became active (a refused connection) is torn down without
    /// `channelInactive`: the promise must not be left open. Completing it twice is harmless.
    func handlerRemoved(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
    }
}

/// The decisions a connection's verifier made.
final class DecisionBox: @unchecked Sendable {
    private let lock = NSLock()
    private var decisions: [TrustDecision] = []

    func record(_ decision: TrustDecision) { lock.withLock { decisions.append(decision) } }

    var last: TrustDecision? { lock.withLock { decisions.last } }
}

/// A flag set once, read from any thread.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }

    var isSet: Bool { lock.withLock { value } }
}
