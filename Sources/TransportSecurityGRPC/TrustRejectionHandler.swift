#if GRPC
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import TransportSecurity

/// Sits behind a verified connection's TLS handler and tells why its handshake failed: when the
/// verifier rejected the server, the handshake's error goes on as a ``ServerTrustRejection``
/// carrying the decision (grpc-swift makes the first error it sees the cause of its `RPCError`).
final class TrustRejectionHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    /// The connection's last decision, set by the verification callback.
    private let decision = NIOLockedValueBox<TrustDecision?>(nil)
    private let host: String

    init(host: String) {
        self.host = host
    }

    /// Records a decision of this connection's verifier.
    func record(_ decision: TrustDecision) {
        self.decision.withLockedValue { $0 = decision }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .handshakeFailed? = error as? NIOSSLError,
           let decision = decision.withLockedValue({ $0 }), !decision.isTrusted
        {
            context.fireErrorCaught(ServerTrustRejection(decision: decision, host: host))
        } else {
            context.fireErrorCaught(error)
        }
    }
}
#endif
