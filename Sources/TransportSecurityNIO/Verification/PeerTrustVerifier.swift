import Crypto
import Foundation
import Logging
import NIOCore
import NIOSSL
import TransportSecurity

/// Decides a TLS peer's certificate chain with a TransportSecurity evaluator, as swift-nio-ssl's
/// custom verification callback.
///
/// The policy owns the whole decision: use it with a `TLSConfiguration` whose
/// `certificateVerification` is `.noHostnameVerification` (see
/// `TLSConfiguration.transportSecurityClient(identity:minimumTLSVersion:)`), so that
/// swift-nio-ssl runs no hostname check of its own after the callback, and never with `.none`,
/// under which swift-nio-ssl ignores a `.failed` answer.
///
/// A decision found in the cache completes the promise at once, on the event loop, without a
/// task hop; otherwise the chain is parsed and evaluated in a task.
///
/// ```swift
/// let verifier = PeerTrustVerifier(evaluator: policy, host: "api.example.com")
/// let handler = try NIOSSLClientHandler(
///     context: context,
///     serverHostname: verifier.serverNameIndication,
///     customVerificationCallback: verifier.makeVerificationCallback()
/// )
/// ```
public struct PeerTrustVerifier: Sendable {
    /// The evaluator that decides.
    public let evaluator: AnyServerTrustEvaluator
    /// The host connected to (for a server verifying clients: a label for logs).
    public let host: String
    /// Where decisions are cached; `nil` evaluates every handshake.
    public let cache: DecisionCache?
    /// Everything of the server trust but the chain: store, time, limits.
    let template: ServerTrust
    private let logger: Logger
    /// The peers this verifier trusted with a validated path, for connections that resume
    /// their TLS sessions (shared by the verifier's copies).
    let verifiedPeers = VerifiedPeerMemory()

    /// Creates a verifier.
    /// - Parameters:
    ///   - evaluator: What decides (a `SecurityPolicy`, an evaluator, a `ServerTrustManager`).
    ///   - host: The host connected to.
    ///   - systemStore: The store standing for the system; `nil` loads `TrustStore.system` now.
    ///   - evaluationTime: A fixed evaluation time (tests); `nil` is the time of each handshake.
    ///   - limits: Path-building limits.
    ///   - options: The public suffix list for wildcards and the SHA-1 switch.
    ///   - cache: The decision cache; `nil` for none.
    ///   - logger: Where decisions are logged (debug level); nothing is logged unless given.
    public init(
        evaluator: any ServerTrustEvaluating,
        host: String,
        systemStore: TrustStore? = nil,
        evaluationTime: Date? = nil,
        limits: PathBuildingLimits = .default,
        options: TrustEvaluationOptions = .default,
        cache: DecisionCache? = .shared,
        logger: Logger = Logger(label: "TransportSecurity.PeerTrustVerifier", factory: SwiftLogNoOpLogHandler.init)
    ) {
        self.evaluator = AnyServerTrustEvaluator(evaluator)
        self.host = host
        self.cache = cache
        // Read the system store now, not on the event loop during a handshake.
        self.template = ServerTrust(
            chain: [],
            policy: .ssl(host),
            systemStore: systemStore ?? (try? TrustStore.system),
            evaluationTime: evaluationTime,
            limits: limits,
            options: options
        )
        self.logger = logger
    }

    /// The name to send as TLS server name indication: the host, unless it is an IP literal
    /// (SNI carries DNS names only).
    public var serverNameIndication: String? {
        ServerHost(host).isIPAddress ? nil : ServerHost(host).name
    }

    /// The swift-nio-ssl callback (`NIOSSLCustomVerificationCallback`), `@Sendable` so that
    /// server frameworks' configurations take it as it is (Hummingbird's
    /// `TLSChannelConfiguration(customVerificationCallback:)`, Vapor's
    /// `customCertificateVerifyCallback`).
    /// - Parameter onDecision: Called with every decision, before the handshake goes on (a session
    ///   keeps the rejection to report it).
    public func makeVerificationCallback(
        onDecision: (@Sendable (TrustDecision) -> Void)? = nil
    ) -> @Sendable ([NIOSSLCertificate], EventLoopPromise<NIOSSLVerificationResult>) -> Void {
        { certificates, promise in
            self.verify(certificates) { decision in
                onDecision?(decision)
                promise.succeed(decision.isTrusted ? .certificateVerified : .failed)
            }
        }
    }

    /// Decides on `certificates`; calls `completion` synchronously on a cache hit, else from a task.
    public func verify(_ certificates: [NIOSSLCertificate], completion: @escaping @Sendable (TrustDecision) -> Void) {
        verify(certificates) { decision, _ in completion(decision) }
    }

    /// Decides on `certificates`, as ``verify(_:completion:)``, and hands `completion` their DER
    /// encodings too (empty when they could not be encoded).
    func verify(_ certificates: [NIOSSLCertificate], completion: @escaping @Sendable (TrustDecision, [[UInt8]]) -> Void) {
        let encoded: [[UInt8]]
        do {
            encoded = try certificates.map { try $0.toDERBytes() }
        } catch {
            return finish(reject("the peer's certificates could not be encoded: \(error)")) { completion($0, []) }
        }
        let completion: @Sendable (TrustDecision) -> Void = { completion($0, encoded) }
        let fingerprints = encoded.map { Array(SHA256.hash(data: $0)) }
        let key = cache.flatMap { _ in
            DecisionCacheKey(chainFingerprints: fingerprints, trust: template, host: host, evaluator: evaluator)
        }
        if let cache, let key, let cached = cache.cachedDecision(for: key) {
            return finish(cached, completion)
        }
        var trust = template
        do {
            trust.chain = try encoded.map { try DERCertificate(derBytes: $0) }
        } catch {
            return finish(reject("the peer presented a certificate that does not parse: \(error)"), completion)
        }
        let chain = trust.chain
        Task {
            let decision = await self.evaluator.evaluate(trust, forHost: self.host)
            if let cache = self.cache, let key { cache.store(decision, for: key, chain: chain) }
            self.finish(decision, completion)
        }
    }

    private func finish(_ decision: TrustDecision, _ completion: @Sendable (TrustDecision) -> Void) {
        if decision.isTrusted {
            logger.debug("peer trusted", metadata: ["host": "\(host)", "decidedBy": "\(decision.decidedBy)"])
        } else {
            logger.debug("peer rejected", metadata: ["host": "\(host)", "decidedBy": "\(decision.decidedBy)", "reason": "\(decision.reason)"])
        }
        completion(decision)
    }

    private func reject(_ reason: String) -> TrustDecision {
        TrustDecision(isTrusted: false, decider: .peerVerifier, reason: reason)
    }
}
