import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import TransportSecurity
import TransportSecurityNIO

/// TLS with an HTTPS proxy: the first layer of a connection through it. The proxy's
/// certificate is judged by the proxy's evaluator for the proxy's name; everything after (the
/// `CONNECT` request and the server's own TLS inside the tunnel, or cleartext requests in
/// absolute form) goes through it.
final class ProxyTLS: Sendable {
    let proxy: HTTPProxy
    private let verifier: PeerTrustVerifier
    private let decisions = VerifierDecisions()
    private let completed = LockedFlag()

    /// TLS with `proxy`, its certificate judged by the verifier `PeerEvaluation` makes for proxies.
    init(proxy: HTTPProxy, configuration: SecureSessionConfiguration) {
        self.proxy = proxy
        verifier = PeerEvaluation.verifier(for: proxy, configuration: configuration)
    }

    /// Puts TLS with the proxy first in `channel`'s pipeline; the future succeeds once its
    /// handshake completes.
    func install(on channel: any Channel, context: NIOSSLContext, firstError: NIOLockedValueBox<(any Error)?>) throws -> EventLoopFuture<Void> {
        let handshake = channel.eventLoop.makePromise(of: Void.self)
        let completed = completed
        handshake.futureResult.whenSuccess { completed.set() }
        try HandshakeWatcher.addVerifiedTLS(
            to: channel,
            context: context,
            verifier: verifier,
            decisions: decisions,
            watcher: HandshakeWatcher(promise: handshake, firstError: firstError, passesCompletionOn: false)
        )
        return handshake.futureResult
    }

    /// What a connection that failed before TLS with the proxy was established reports: the
    /// proxy's certificate rejected (with the decision's reason), or the handshake failing;
    /// `nil` once it was established (the failure is the tunnel's or the server's).
    func failure(_ error: any Error) -> SecureSessionError? {
        guard !completed.isSet else { return nil }
        if let decision = decisions.last, !decision.isTrusted {
            return .proxyFailure("the certificate of the proxy \(proxy) was rejected: \(decision.reason) [\(decision.decidedBy)]")
        }
        return .proxyFailure("TLS with the proxy \(proxy) failed: \(TLSFailureText.describe(error))")
    }
}
