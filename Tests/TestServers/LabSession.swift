import PKIBuilder
import SecureSession
import TransportSecurity

extension TrustLab {
    /// A session trusting the lab's system roots at the lab's time, with no decision cache and
    /// short timeouts (5 s to connect, 10 s per request), changed by `configure`.
    public func session(
        _ evaluator: any ServerTrustEvaluating = SecurityPolicy.default,
        configure: (inout SecureSessionConfiguration) -> Void = { _ in }
    ) -> SecureSession {
        var configuration = SecureSessionConfiguration(
            tls: .init(
                trustEvaluator: evaluator,
                systemStore: TrustStore(systemRoots.map(\.der), origin: "lab system store"),
                evaluationTime: pki.now,
                decisionCache: nil
            ),
            timeouts: .init(connect: .seconds(5), request: .seconds(10))
        )
        configure(&configuration)
        return SecureSession(configuration: configuration)
    }
}
