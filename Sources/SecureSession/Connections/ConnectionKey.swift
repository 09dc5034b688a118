import Foundation
import TransportSecurity
import TransportSecurityNIO

/// What makes two requests able to share a connection: scheme, host, port, the client identity
/// offered, the evaluator that trusted the server, the challenge handler consulted, the proxy, and
/// whether the server asked for HTTP/1.1.
///
/// The pool looks keys up several times per request, so the hash (which covers the evaluator's
/// pins) is computed once.
struct ConnectionKey: Sendable, Hashable, CustomStringConvertible {
    let isSecure: Bool
    let host: String
    let port: Int
    /// The client identity offered, if any; keys differ by its certificates
    /// (``ClientIdentity/chainFingerprint``), so a renewed identity gets connections of its own.
    let identity: ClientIdentity?
    let evaluator: AnyServerTrustEvaluator
    /// The challenge handler that answers the server-trust and client-certificate challenges of
    /// the connection, if any.
    let handler: HandlerIdentity?
    /// Whether the connection serves one request only (its server trust was put to that
    /// request's own challenge handler).
    let isSingleUse: Bool
    /// The host's transport rule, when the session has rules.
    let rule: TransportRule?
    /// The HTTP proxy the connection goes through (a tunnel for TLS, absolute-form requests
    /// for cleartext), if any.
    let proxy: HTTPProxy?
    /// Whether TLS offers `http/1.1` alone through ALPN: the server asked for HTTP/1.1
    /// (``HTTP1Required``).
    let isHTTP1Only: Bool
    /// The fixed time the session judges certificates at (its `evaluationTime`; `nil`: the time
    /// of each handshake), for what a failure says of the identity presented. Every key of a
    /// session has the same, so it is not part of what tells keys apart.
    let evaluationTime: Date?
    private let precomputedHash: Int

    init(
        isSecure: Bool,
        host: String,
        port: Int,
        identity: ClientIdentity?,
        evaluator: AnyServerTrustEvaluator,
        handler: HandlerIdentity?,
        isSingleUse: Bool,
        rule: TransportRule? = nil,
        proxy: HTTPProxy? = nil,
        isHTTP1Only: Bool = false,
        evaluationTime: Date? = nil
    ) {
        self.isSecure = isSecure
        self.host = host
        self.port = port
        self.identity = identity
        self.evaluator = evaluator
        self.handler = handler
        self.isSingleUse = isSingleUse
        self.rule = rule
        self.proxy = proxy
        self.isHTTP1Only = isHTTP1Only
        self.evaluationTime = evaluationTime
        var hasher = Hasher()
        hasher.combine(isSecure)
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(identity?.chainFingerprint)
        hasher.combine(evaluator)
        hasher.combine(handler)
        hasher.combine(isSingleUse)
        hasher.combine(rule)
        hasher.combine(proxy)
        hasher.combine(isHTTP1Only)
        precomputedHash = hasher.finalize()
    }

    static func == (lhs: ConnectionKey, rhs: ConnectionKey) -> Bool {
        lhs.precomputedHash == rhs.precomputedHash && lhs.isSecure == rhs.isSecure && lhs.host == rhs.host && lhs.port == rhs.port
            && lhs.identity?.chainFingerprint == rhs.identity?.chainFingerprint && lhs.handler == rhs.handler && lhs.isSingleUse == rhs.isSingleUse
            && lhs.rule == rhs.rule && lhs.proxy == rhs.proxy && lhs.isHTTP1Only == rhs.isHTTP1Only
            && lhs.evaluator == rhs.evaluator
    }

    /// The same key for connections that offer HTTP/1.1 only.
    func offeringHTTP1Only() -> ConnectionKey { offering(http1Only: true) }

    /// The same key for connections that offer HTTP/1.1 only, or HTTP/2 too.
    func offering(http1Only: Bool) -> ConnectionKey {
        ConnectionKey(
            isSecure: isSecure,
            host: host,
            port: port,
            identity: identity,
            evaluator: evaluator,
            handler: handler,
            isSingleUse: isSingleUse,
            rule: rule,
            proxy: proxy,
            isHTTP1Only: http1Only,
            evaluationTime: evaluationTime
        )
    }

    func hash(into hasher: inout Hasher) { hasher.combine(precomputedHash) }

    /// The server, as the session names it in errors, logs, metrics, circuits and rate limits:
    /// `https://host:port`.
    var description: String { ServerName.of(isSecure: isSecure, host: host, port: port) }

    /// The identity the key's connections offer when no challenge handler chooses one (with a
    /// handler, what is presented is the handler's answer).
    var offeredIdentity: ClientIdentity? { handler == nil ? identity : nil }

    /// ``offeredIdentity`` with the time its validity is judged at, for what a refusal says.
    var presentedIdentity: (identity: ClientIdentity, at: Date)? {
        offeredIdentity.map { ($0, evaluationTime ?? Date()) }
    }

    /// The server, as the session remembers what it learnt of it.
    var server: HostAndPort { HostAndPort(host: host, port: port) }
}
