import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import TransportSecurity
import TransportSecurityNIO

/// `tsec evaluate HOST:PORT`: a live server judged by a whole TLS handshake. The chain the server
/// presents is decided by a `PeerTrustVerifier`, as a session's would be, and a trusted decision
/// counts only once the handshake completes: the server has then signed it with the leaf's key.
/// A chain read without completing the handshake proves nothing (anyone can replay a genuine
/// chain), which is why `tsec pin HOST:PORT` says its pins are unjudged.
struct HandshakeJudgement: Sendable {
    /// The server could not be reached, or broke off before presenting a certificate.
    struct Unreachable: Error, CustomStringConvertible {
        /// A sentence naming the server and the problem.
        let description: String
    }

    /// The verifier's decision on the chain the server presented.
    let decision: TrustDecision
    /// Why the handshake failed after the chain was decided, if it did.
    let handshakeFailure: String?

    /// The outcome: the verifier's decision when the handshake completed or the chain was
    /// rejected; a rejection when a trusted chain's handshake then failed (the server did not
    /// prove it holds the leaf's key, or broke off).
    var outcome: TrustDecision {
        guard decision.isTrusted, let handshakeFailure else { return decision }
        return TrustDecision(
            isTrusted: false,
            decider: decision.decider,
            rule: decision.rule,
            reason: "the chain was judged trusted, but the handshake failed before the server proved it holds the leaf's key: \(handshakeFailure)",
            checks: decision.checks + [TrustCheck(name: "handshake completed", passed: false, detail: handshakeFailure)]
        )
    }

    /// Connects to `host:port`, sends the verifier's host as SNI, and completes a handshake whose
    /// peer is judged by `verifier`.
    /// - Throws: ``Unreachable`` when no chain was presented (refused, timed out, not TLS).
    static func judge(
        host: String,
        port: Int,
        verifier: PeerTrustVerifier,
        timeout: TimeAmount = .seconds(10),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(Unreachable) -> HandshakeJudgement {
        let endpoint = ConnectionFailureText.endpoint(host, port)
        let decided = NIOLockedValueBox<TrustDecision?>(nil)
        // Set when the server's chain reaches the verifier, whose decision comes from a task: a
        // server that breaks off while it is being judged still presented a chain.
        let presented = NIOLockedValueBox(false)
        let channel: any Channel
        let completed: EventLoopFuture<Void>
        do {
            let context = try NIOSSLContext(configuration: .transportSecurityClient())
            (channel, completed) = try await ClientBootstrap(group: group)
                .connectTimeout(timeout)
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let promise = channel.eventLoop.makePromise(of: Void.self)
                        let verify = verifier.makeVerificationCallback { decision in decided.withLockedValue { $0 = decision } }
                        let tls = try NIOSSLClientHandler(
                            context: context,
                            serverHostname: verifier.serverNameIndication,
                            customVerificationCallback: { certificates, promise in
                                presented.withLockedValue { $0 = true }
                                verify(certificates, promise)
                            }
                        )
                        try channel.pipeline.syncOperations.addHandler(tls)
                        try channel.pipeline.syncOperations.addHandler(HandshakeCompletion(promise: promise))
                        return (channel, promise.futureResult)
                    }
                }
        } catch {
            throw Unreachable(description: "cannot connect to \(endpoint): \(ConnectionFailureText.describe(error))")
        }
        let timedOut = NIOLockedValueBox(false)
        let timer = channel.eventLoop.scheduleTask(in: timeout) {
            timedOut.withLockedValue { $0 = true }
            channel.close(promise: nil)
        }
        defer {
            timer.cancel()
            channel.close(promise: nil)
        }
        var failure: String?
        do {
            try await completed.get()
        } catch {
            failure = timedOut.withLockedValue { $0 } ? "timed out after \(timeout.nanoseconds / 1_000_000) ms" : ConnectionFailureText.describe(error)
        }
        // A chain presented and still being judged when the handshake failed: its decision is
        // awaited (a rejection stays a rejection, exit 1, not an unreachable server).
        for _ in 0..<500 where presented.withLockedValue({ $0 }) && decided.withLockedValue({ $0 }) == nil {
            try? await Task.sleep(for: .milliseconds(10))
        }
        guard let decision = decided.withLockedValue({ $0 }) else {
            if presented.withLockedValue({ $0 }) {
                let reason = "the handshake failed while the chain was being judged: \(failure ?? "the handshake ended early")"
                return HandshakeJudgement(decision: TrustDecision(isTrusted: false, decider: .peerVerifier, reason: reason), handshakeFailure: failure)
            }
            throw Unreachable(description: "\(endpoint) presented no certificate: \(failure ?? "the handshake ended early")")
        }
        return HandshakeJudgement(decision: decision, handshakeFailure: failure)
    }
}

/// Completes a promise when the TLS handshake completes; fails it when the channel errors or
/// closes first (completing it twice is harmless).
private final class HandshakeCompletion: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny
    private let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { promise.succeed() }
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

    func handlerRemoved(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
    }
}
