import CoreMetrics
import TransportSecurity
import TransportSecurityNIO

/// What a session counts and times of its work, through swift-metrics
/// (``SecureSessionConfiguration/metricsFactory``):
///
/// - `secure_session_requests_total`, a counter by `method` and `status` (the final status
///   code), or by `method` and `error` (``SecureSessionError/kind``, with `status` too for an
///   unacceptable one);
/// - `secure_session_request_duration_seconds`, a timer by `method`: the whole request,
///   redirects, challenges, retries and the reading of the body included;
/// - `secure_session_trust_decisions_total`, a counter by `outcome` (`trusted`, `rejected`) and
///   `decided_by` (the rule that decided): one per verified connection;
/// - `secure_session_server_keys_total`, a counter by `server` (`https://host:port`) and `spki`
///   (the `sha256/…` pin of the key of the trusted server's certificate): one per trusted
///   connection, so that a server's move to another key (its backup pin) shows as it happens;
/// - `secure_session_connections_total`, a counter by `protocol` (`http/1.1`, `h2`): one per
///   connection made;
/// - `secure_session_server_certificate_expiry_timestamp_seconds`, a gauge by `server`
///   (`https://host:port`): the earliest `notAfter` of the certificate path that the last
///   trusted connection to the server was validated through, else of the chain it presented
///   (seconds since 1970), the moment from which its connections fail unless the server renews
///   (blackbox_exporter's `probe_ssl_earliest_cert_expiry`); a server that renews moves it on;
/// - `secure_session_client_certificate_expiry_timestamp_seconds`, a gauge by `subject`: when
///   the client certificate the session offers expires (seconds since 1970), set by each
///   connection made offering it, so that a dashboard warns before a server starts refusing it
///   (a renewed certificate, ``SecureSessionConfiguration/TLS/clientIdentityFile``, moves it on);
/// - `secure_session_cache_lookups_total`, a counter by `result`: `hit` (the session's
///   ``ResponseCache`` answered), `revalidated` (it answered after the server's `304`), `miss`
///   (the server sent a response), `stale` (a stale response answered, RFC 5861's
///   `stale-while-revalidate` or `stale-if-error`); requests that bypass the cache, and
///   background revalidations, are not counted;
/// - `secure_session_circuit_open`, a gauge by `server` (`https://host:port`): 1 from the moment
///   the server's circuit opens (``SecureSessionConfiguration/Features/circuitBreaker``) until a trial
///   request closes it, then 0.
///
/// The process's factory is read when the session is made; when it is swift-metrics' no-op one
/// (nothing bootstrapped), nothing is counted at all, at no cost to a request.
struct SessionInstrumentation: Sendable {
    let metrics: any MetricsFactory
    private let isEnabled: Bool

    init(metrics: (any MetricsFactory)?) {
        self.metrics = metrics ?? MetricsSystem.factory
        isEnabled = !(self.metrics is NOOPMetricsHandler)
    }

    /// Runs `perform`, then counts and times its outcome.
    func request(_ request: SecureRequest, _ perform: () async throws -> SecureResponse) async throws -> SecureResponse {
        guard isEnabled else { return try await perform() }
        let method = request.method.rawValue
        let started = ContinuousClock.now
        var dimensions = [("method", method)]
        defer {
            Timer(label: "secure_session_request_duration_seconds", dimensions: [("method", method)], factory: metrics)
                .recordNanoseconds((ContinuousClock.now - started).nanoseconds)
            Counter(label: "secure_session_requests_total", dimensions: dimensions, factory: metrics).increment()
        }
        do {
            let response = try await perform()
            dimensions.append(("status", String(response.statusCode)))
            return response
        } catch {
            dimensions.append(("error", (error as? SecureSessionError)?.kind ?? "other"))
            if case .unacceptableStatus(let code, _)? = error.sessionFailureReason { dimensions.append(("status", String(code))) }
            throw error
        }
    }

    /// The trust decision of a connection to `server` (`https://host:port`).
    func decided(_ decision: TrustDecision, server: String) {
        guard isEnabled else { return }
        Counter(
            label: "secure_session_trust_decisions_total",
            dimensions: [("outcome", decision.isTrusted ? "trusted" : "rejected"), ("decided_by", decision.decidedBy)],
            factory: metrics
        ).increment()
        // The key the trusted server proved it holds (its handshake was signed with it): a
        // rotation to a backup key shows as a new pin.
        if decision.isTrusted, let leaf = decision.lastEvaluation?.presentedChain.first {
            Counter(
                label: "secure_session_server_keys_total",
                dimensions: [("server", server), ("spki", leaf.spkiPin.description)],
                factory: metrics
            ).increment()
        }
        // The path validated, else (certificates allowed without validation) the chain presented.
        guard decision.isTrusted, let evaluation = decision.lastEvaluation,
            let expiry = (evaluation.path.isEmpty ? evaluation.presentedChain : evaluation.path).lazy.map(\.certificate.notValidAfter).min()
        else { return }
        Gauge(
            label: "secure_session_server_certificate_expiry_timestamp_seconds",
            dimensions: [("server", server)],
            factory: metrics
        ).record(expiry.timeIntervalSince1970)
    }

    /// A connection made offering the session's client identity.
    func offered(_ identity: ClientIdentity) {
        guard isEnabled else { return }
        Gauge(
            label: "secure_session_client_certificate_expiry_timestamp_seconds",
            dimensions: [("subject", identity.leaf.subjectSummary)],
            factory: metrics
        ).record(identity.leaf.certificate.notValidAfter.timeIntervalSince1970)
    }

    /// A request the response cache was asked for: `hit`, `revalidated` or `miss`.
    func cacheLookup(_ result: String) {
        guard isEnabled else { return }
        Counter(label: "secure_session_cache_lookups_total", dimensions: [("result", result)], factory: metrics).increment()
    }

    /// `server`'s circuit opened (or opened again), or closed.
    func circuit(of server: String, isOpen: Bool) {
        guard isEnabled else { return }
        Gauge(label: "secure_session_circuit_open", dimensions: [("server", server)], factory: metrics).record(isOpen ? 1 : 0)
    }

    /// A connection made, speaking HTTP/2 or HTTP/1.1.
    func connected(http2: Bool) {
        guard isEnabled else { return }
        Counter(label: "secure_session_connections_total", dimensions: [("protocol", http2 ? "h2" : "http/1.1")], factory: metrics).increment()
    }
}
