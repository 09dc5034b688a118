import Foundation
import TransportSecurity
import TransportSecurityNIO

/// The one place that says how a TLS server of the session is judged: which evaluators decide it
/// and the verifier that asks them during the handshake.
///
/// From the inside out: the request's or the session's challenge handler when there is one (it is
/// put the server trust of every new connection), else the configured ``SecureSessionConfiguration/TLS/trustEvaluator``;
/// around it the host's updatable pin set (``PinSetEvaluator``), then the host's transport rule
/// (``TransportRuleEvaluator``, with certificate transparency when logs are configured), so that
/// a rule or a pin set only ever adds refusals to what the inner evaluator decided.
enum PeerEvaluation {
    /// The evaluator that decides `host`'s server (on `port`) under `rule`, asking `handler` when given.
    static func evaluator(
        forHost host: String,
        port: Int,
        handler: HandlerIdentity?,
        rule: TransportRule?,
        configuration: SecureSessionConfiguration
    ) -> AnyServerTrustEvaluator {
        var evaluator = handler.map { AnyServerTrustEvaluator(ServerTrustChallengeEvaluator(handler: $0, port: port)) } ?? configuration.tls.trustEvaluator
        if let registry = configuration.tls.pinSetRegistry, let set = registry.pinSet(forHost: host) {
            // The set is part of the connection's key: new pins never reuse a connection trusted
            // under the old ones.
            evaluator = AnyServerTrustEvaluator(PinSetEvaluator(evaluator, pinSet: set, origin: registry.source.description))
        }
        guard let rule else { return evaluator }
        let logs = configuration.tls.certificateTransparencyLogs.map(CertificateTransparencyPolicy.init(logList:))
        return AnyServerTrustEvaluator(TransportRuleEvaluator(evaluator, rule: rule, certificateTransparency: logs))
    }

    /// The verifier of a TLS connection to `key`'s server: ``ConnectionKey/evaluator`` asked with
    /// the session's system store, evaluation time and options, its decisions cached in the
    /// session's ``SecureSessionConfiguration/TLS/decisionCache`` unless a challenge handler decides.
    static func verifier(for key: ConnectionKey, configuration: SecureSessionConfiguration) -> PeerTrustVerifier {
        // A handler's answer is not a policy's: it is asked for every connection, however
        // rules or a pin set wrap it (a wrapped answer would otherwise be cached as theirs).
        verifier(key.evaluator, host: key.host, cached: key.handler == nil, configuration: configuration)
    }

    /// The verifier of TLS with an HTTPS proxy: the proxy's own evaluator (``HTTPProxy/trustEvaluator``),
    /// else the default policy (system trust and the proxy's name), for the proxy's name.
    static func verifier(for proxy: HTTPProxy, configuration: SecureSessionConfiguration) -> PeerTrustVerifier {
        verifier(proxy.trustEvaluator ?? AnyServerTrustEvaluator(SecurityPolicy.default), host: proxy.host, cached: true, configuration: configuration)
    }

    private static func verifier(
        _ evaluator: AnyServerTrustEvaluator, host: String, cached: Bool, configuration: SecureSessionConfiguration
    ) -> PeerTrustVerifier {
        PeerTrustVerifier(
            evaluator: evaluator,
            host: host,
            systemStore: configuration.tls.systemStore,
            evaluationTime: configuration.tls.evaluationTime,
            options: configuration.tls.trustEvaluationOptions,
            cache: cached ? configuration.tls.decisionCache : nil,
            logger: configuration.logger
        )
    }
}
