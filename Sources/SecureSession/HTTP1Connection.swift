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
/// A holder task owns the channel through `NIOAsyncChannel.executeThenClose` and keeps it open
/// until the connection closes; the request that has leased the connection (the pool leases it
/// to one request at a time) writes to it and reads its response itself, with no task between.
final class HTTP1Connection: Sendable {
    /// Receives each chunk of a response body, with the response's head.
    typealias BodySink = @Sendable (HTTPResponseHead, ByteBuffer) async throws -> Void

    struct ResponseHead: Sendable {
        let head: HTTPResponseHead
        let reusable: Bool
    }

    let key: ConnectionKey
    /// The decision that trusted the server (TLS connections).
    let trustDecision: TrustDecision?
    private let channel: any Channel
    private let exchanger: Exchanger
    private let closed = LockedFlag()
    private let idleState = NIOLockedValueBox(IdleState())

    private struct IdleState {
        /// Since when the connection has waited in the pool; `nil` while in use.
        var idleSince: NIODeadline?
        var timerArmed = false
    }

    private init(
        key: ConnectionKey,
        channel: any Channel,
        trustDecision: TrustDecision?,
        outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>,
        inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>
    ) {
        self.key = key
        self.channel = channel
        self.trustDecision = trustDecision
        self.exchanger = Exchanger(inbound: inbound, outbound: outbound)
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
        deadline: Deadline,
        reporter: PinFailureReporter?
    ) async throws -> HTTP1Connection {
        let decisions = DecisionBox()
        // With a challenge handler, the server's certificate request goes to it, through a
        // context of the connection's own.
        let certificateChallenge = key.isSecure ? key.handler.map {
            ClientCertificateChallenge(handler: $0, host: key.host, port: key.port, sessionIdentity: configuration.clientIdentity)
        } : nil
        let sslContext: NIOSSLContext?
        do {
            sslContext = key.isSecure ? try certificateChallenge?.makeTLSContext(rule: key.rule) ?? tlsContext : nil
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
            throw SecureSessionError.connectionFailed("\(key): \(ConnectionFailureText.describe(error))")
        }
        do {
            let channel = asyncChannel.channel
            try await deadline.interrupting(with: { channel.close(promise: nil) }) {
                try await withDeadline(connectLimit, onTimeout: { channel.close(promise: nil) }) { _ in
                    try await handshake.get()
                }
            }
        } catch {
            // The async channel must be closed through its owner, or NIO traps on its writer.
            try? await asyncChannel.executeThenClose { _, _ in }
            if let decision = decisions.last { reporter?.submitFailure(of: decision, under: key.rule, host: key.host, port: key.port) }
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
            if let rule = key.rule, rule.enforcesATS, Self.isNegotiationFailure(error) {
                throw SecureSessionError.refusedByTransportRules(
                    host: key.host,
                    reason: "the TLS handshake failed under the rule (from \(rule.originDescription)): TLS ≥ \(rule.minimumTLSVersion.displayName.dropFirst(4))"
                        + (rule.requiresForwardSecrecy ? " with forward-secret (ECDHE) suites" : "")
                        + " is required (\(error)); NSExceptionMinimumTLSVersion or NSExceptionRequiresForwardSecrecy = false relax it"
                )
            }
            throw SecureSessionError.tlsFailure("\(key): \(error)")
        }
        // A report-only pin set lets the connection through but its failure is reported.
        if let decision = decisions.last { reporter?.submitFailure(of: decision, under: key.rule, host: key.host, port: key.port) }
        // The holder task hands the channel's streams over and keeps them open until the close.
        let handover = OnceAnswer<(NIOAsyncChannelInboundStream<HTTPClientResponsePart>, NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>)>()
        let channel = asyncChannel.channel
        Task {
            do {
                try await asyncChannel.executeThenClose { inbound, outbound in
                    handover.give(.success((inbound, outbound)))
                    try await channel.closeFuture.get()
                }
            } catch {
                handover.give(.failure(error))
            }
        }
        let (inbound, outbound) = try await handover.value
        return HTTP1Connection(key: key, channel: channel, trustDecision: decisions.last, outbound: outbound, inbound: inbound)
    }

    /// Whether a handshake error says that client and server share no protocol version or
    /// cipher suite (what a transport rule's TLS settings cause).
    static func isNegotiationFailure(_ error: any Error) -> Bool {
        let text = String(describing: error).uppercased()
        return ["UNSUPPORTED_PROTOCOL", "NO_SHARED_CIPHER", "PROTOCOL_VERSION", "WRONG_VERSION_NUMBER", "HANDSHAKE_FAILURE", "NO_CIPHERS_AVAILABLE"]
            .contains { text.contains($0) }
    }

    /// Sends a request and reads its response; the body goes to `sink` before this returns.
    /// Only the request that leased the connection calls this, one request at a time.
    func execute(head: HTTPRequestHead, body: ByteBuffer?, sink: @escaping BodySink) async throws -> ResponseHead {
        guard isUsable else { throw SecureSessionError.connectionFailed("\(key): the connection is closed") }
        do {
            var parts: [HTTPClientRequestPart] = [.head(head)]
            if let body { parts.append(.body(.byteBuffer(body))) }
            parts.append(.end(nil))
            let response = try await exchanger.exchange(parts, into: sink)
            if !response.isKeepAlive { close() }
            return ResponseHead(head: response, reusable: response.isKeepAlive)
        } catch let error as SecureSessionError {
            close()
            throw error
        } catch HTTPParserError.invalidEOFState {
            close()
            throw SecureSessionError.connectionFailed("\(key): the server closed the connection before the response ended")
        } catch let error as HTTPParserError {
            // The server answered, but not in HTTP: not a network failure, and not retried.
            close()
            throw SecureSessionError.invalidResponse("\(key): \(error) (\(Self.explanation(of: error)))")
        } catch {
            close()
            throw SecureSessionError.connectionFailed("\(key): \(error)")
        }
    }

    /// What a parser error means, in words.
    static func explanation(of error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow: return "the response head is larger than swift-nio's parser accepts"
        case .unexpectedContentLength, .invalidContentLength: return "conflicting, malformed or misplaced Content-Length headers"
        case .invalidConstant, .invalidVersion: return "the server did not answer in HTTP/1.x"
        case .invalidStatus: return "the status line is malformed"
        case .invalidChunkSize: return "the chunked body is malformed"
        case .invalidHeaderToken, .invalidCharactersUsed: return "a header holds characters HTTP does not allow"
        default: return "the response is not valid HTTP/1.1"
        }
    }

    /// Marks the connection idle: `expire` runs once it has been idle for `timeout`. One timer
    /// per connection, armed at its first idle period and re-armed from its own event loop, so
    /// that returning a connection to the pool and leasing it again only take a lock.
    func markIdle(expiringAfter timeout: Duration, _ expire: @escaping @Sendable () -> Void) {
        let needsTimer: Bool = idleState.withLockedValue { state in
            state.idleSince = .now()
            defer { state.timerArmed = true }
            return !state.timerArmed
        }
        if needsTimer { armIdleTimer(in: .nanoseconds(timeout.nanoseconds), timeout: timeout, expire) }
    }

    /// Marks the connection in use.
    func markInUse() {
        idleState.withLockedValue { $0.idleSince = nil }
    }

    private func armIdleTimer(in delay: TimeAmount, timeout: Duration, _ expire: @escaping @Sendable () -> Void) {
        channel.eventLoop.scheduleTask(in: delay) { [weak self] in
            guard let self, self.isUsable else { return }
            let limit = TimeAmount.nanoseconds(timeout.nanoseconds)
            let next: TimeAmount? = self.idleState.withLockedValue { state in
                guard let since = state.idleSince else { return limit }
                let idleFor = NIODeadline.now() - since
                if idleFor < limit { return limit - idleFor }
                // The next idle period arms a new timer should this one find the connection leased.
                state.timerArmed = false
                return nil
            }
            if let next {
                self.armIdleTimer(in: next, timeout: timeout, expire)
            } else {
                expire()
            }
        }
    }

    /// Closes the connection; a request in flight fails.
    func close() {
        closed.set()
        channel.close(promise: nil)
    }
}

/// Writes requests to a connection and reads its responses, for one request at a time (the
/// pool's lease orders the uses, so the stream's iterator is never used concurrently).
private final class Exchanger: @unchecked Sendable {
    private let outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    private var responses: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator

    init(inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>, outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>) {
        self.outbound = outbound
        self.responses = inbound.makeAsyncIterator()
    }

    /// Sends `parts` (one request, in one write) and reads its response: its head, and its body
    /// into `sink`. 1xx responses (100 Continue, 103 Early Hints) that precede it are passed over.
    func exchange(_ parts: [HTTPClientRequestPart], into sink: HTTP1Connection.BodySink) async throws -> HTTPResponseHead {
        try await outbound.write(contentsOf: parts)
        var head: HTTPResponseHead?
        while let part = try await responses.next() {
            switch part {
            case .head(let received):
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
