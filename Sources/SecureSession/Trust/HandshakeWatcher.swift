import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import NIOTLS
import TransportSecurityNIO

/// Completes a promise when the TLS handshake completes, fails it when the channel errors or
/// closes first; keeps the first error the channel meets, handshake or not, to explain why the
/// connection closed (a TLS 1.3 server refuses a missing client certificate with an alert that
/// arrives after the client's handshake has completed).
final class HandshakeWatcher: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny
    private let promise: EventLoopPromise<Void>
    private let firstError: NIOLockedValueBox<(any Error)?>
    private let passesCompletionOn: Bool
    /// Where the version the handshake agreed is kept, if anywhere.
    private let negotiatedVersion: NIOLockedValueBox<TLSVersion?>?
    /// The TLS handler whose handshake is watched, to read the version from.
    private let tls = NIOLockedValueBox<NIOLoopBound<NIOSSLClientHandler>?>(nil)

    /// - Parameters:
    ///   - promise: Completed by the handshake.
    ///   - firstError: Where the first error the channel meets is kept.
    ///   - passesCompletionOn: Whether the handshake's completion goes on down the pipeline
    ///     (`false` for an HTTPS proxy's TLS, whose completion is nobody else's: the server's
    ///     ALPN handler must see its own).
    ///   - negotiatedVersion: Where to keep the TLS version the handshake agreed.
    init(
        promise: EventLoopPromise<Void>,
        firstError: NIOLockedValueBox<(any Error)?>,
        passesCompletionOn: Bool = true,
        negotiatedVersion: NIOLockedValueBox<TLSVersion?>? = nil
    ) {
        self.promise = promise
        self.firstError = firstError
        self.passesCompletionOn = passesCompletionOn
        self.negotiatedVersion = negotiatedVersion
    }

    /// Watches `handler`'s handshake, on its channel's event loop.
    func watch(_ handler: NIOSSLClientHandler, on eventLoop: any EventLoop) {
        tls.withLockedValue { $0 = NIOLoopBound(handler, eventLoop: eventLoop) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            if let negotiatedVersion, let version = tls.withLockedValue({ $0 })?.value.tlsVersion {
                negotiatedVersion.withLockedValue { $0 = version }
            }
            promise.succeed()
            if !passesCompletionOn { return }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        firstError.withLockedValue { if $0 == nil { $0 = error } }
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

extension HandshakeWatcher {
    /// Puts TLS judged by `verifier` (its decisions to `decisions`) at the end of `channel`'s
    /// pipeline, watched by a handshake watcher: for a server, and for an HTTPS proxy first.
    static func addVerifiedTLS(
        to channel: any Channel,
        context: NIOSSLContext,
        verifier: PeerTrustVerifier,
        decisions: VerifierDecisions,
        watcher: HandshakeWatcher
    ) throws {
        let tls = try NIOSSLClientHandler(
            context: context,
            serverHostname: verifier.serverNameIndication,
            customVerificationCallback: verifier.makeVerificationCallback(onDecision: decisions.record)
        )
        watcher.watch(tls, on: channel.eventLoop)
        try channel.pipeline.syncOperations.addHandler(tls)
        try channel.pipeline.syncOperations.addHandler(watcher)
    }
}
