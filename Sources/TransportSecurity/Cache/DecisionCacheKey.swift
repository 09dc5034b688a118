import Foundation

/// Everything a trust decision depends on, as a cache key.
public struct DecisionCacheKey: Sendable, Hashable {
    /// SHA-256 fingerprints of the presented chain, in order.
    public let chainFingerprints: [[UInt8]]
    /// The host the decision is for.
    public var host: String { serverHost.name }
    /// The host, compared by its bytes (`String`'s `==` would take canonically equivalent
    /// hosts, such as `å` as U+00E5 and as `a` + U+030A, for one).
    let serverHost: ServerHost
    /// The server trust's validation policy (an evaluator may judge under the one it is given).
    public let validationPolicy: TrustValidationPolicy
    /// The evaluator that decides.
    public let evaluator: AnyServerTrustEvaluator
    /// The fingerprint of the store standing for the system store.
    public let systemStoreFingerprint: [UInt8]
    /// The fingerprint of the trust's own anchors, if set, and whether they are the only ones.
    public let anchorsFingerprint: [UInt8]?
    /// Whether the trust's anchors are the only ones.
    public let anchorsOnly: Bool
    /// The fixed evaluation time, if the trust has one.
    public let evaluationTime: Date?
    /// The path-building limits.
    public let limits: PathBuildingLimits
    /// The public suffix list and the SHA-1 switch the evaluation used.
    public let options: TrustEvaluationOptions

    /// The key for evaluating `trust` for `host` with `evaluator`.
    /// - Returns: `nil` when the system store is needed and cannot be read (nothing is cached then).
    public init?(trust: ServerTrust, host: String, evaluator: some ServerTrustEvaluating) {
        self.init(
            chainFingerprints: trust.chain.map(\.sha256Fingerprint),
            trust: trust,
            host: host,
            evaluator: evaluator
        )
    }

    /// The key from the chain's fingerprints alone, so that a cache hit needs no certificate
    /// parsing; `trust` supplies everything but the chain.
    public init?(chainFingerprints: [[UInt8]], trust: ServerTrust, host: String, evaluator: some ServerTrustEvaluating) {
        guard let system = try? trust.systemStore ?? TrustStore.system else { return nil }
        self.chainFingerprints = chainFingerprints
        self.serverHost = ServerHost(host)
        self.validationPolicy = trust.policy
        self.evaluator = AnyServerTrustEvaluator(evaluator)
        self.systemStoreFingerprint = system.fingerprint
        self.anchorsFingerprint = trust.anchors.map(TrustStore.fingerprint(of:))
        self.anchorsOnly = trust.anchorsOnly
        self.evaluationTime = trust.evaluationTime
        self.limits = trust.limits
        self.options = trust.options
    }

    /// Hashes every part; byte strings in one call each (a cache hit hashes a key twice).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(chainFingerprints.count)
        for fingerprint in chainFingerprints { hasher.combine(byteArray: fingerprint) }
        hasher.combine(serverHost)
        hasher.combine(validationPolicy)
        hasher.combine(evaluator)
        hasher.combine(byteArray: systemStoreFingerprint)
        hasher.combine(anchorsFingerprint != nil)
        if let anchorsFingerprint { hasher.combine(byteArray: anchorsFingerprint) }
        hasher.combine(anchorsOnly)
        hasher.combine(evaluationTime)
        hasher.combine(limits)
        hasher.combine(options)
    }
}
