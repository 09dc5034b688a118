import Foundation
import X509

/// What a server presented and how to judge it: the `SecTrust` of the seeds.
///
/// A chain (leaf first, possibly with extra or out-of-order certificates), a validation policy
/// (``TrustValidationPolicy/ssl(host:)`` or ``TrustValidationPolicy/basicX509``), optional
/// anchors with Apple's anchors-only switch, the system store to use, and the evaluation time.
///
/// ```swift
/// var trust = ServerTrust(chain: presented, policy: .ssl("api.example.com"))
/// trust.anchors = [pinnedRoot]          // only these are trusted (anchorsOnly defaults to true)
/// let evaluation = await trust.evaluate()
/// ```
public struct ServerTrust: Sendable, Hashable {
    /// The certificates the server presented, leaf first.
    public var chain: [DERCertificate]
    /// What to check besides the path.
    public var policy: TrustValidationPolicy
    /// Anchors set on this trust (`SecTrustSetAnchorCertificates`); `nil` uses the system store.
    public var anchors: [DERCertificate]?
    /// With ``anchors`` set: `true` trusts only them, `false` trusts them and the system store
    /// (`SecTrustSetAnchorCertificatesOnly`).
    public var anchorsOnly: Bool
    /// The store that stands for "the system"; `nil` uses ``TrustStore/system``.
    public var systemStore: TrustStore?
    /// The time to evaluate at; `nil` is the current time.
    public var evaluationTime: Date?
    /// Bounds on path building.
    public var limits: PathBuildingLimits
    /// The public suffix list for wildcards, and whether SHA-1 signatures are allowed.
    public var options: TrustEvaluationOptions

    /// Creates a server trust.
    public init(
        chain: [DERCertificate],
        policy: TrustValidationPolicy,
        anchors: [DERCertificate]? = nil,
        anchorsOnly: Bool = true,
        systemStore: TrustStore? = nil,
        evaluationTime: Date? = nil,
        limits: PathBuildingLimits = .default,
        options: TrustEvaluationOptions = .default
    ) {
        self.chain = chain
        self.policy = policy
        self.anchors = anchors
        self.anchorsOnly = anchorsOnly
        self.systemStore = systemStore
        self.evaluationTime = evaluationTime
        self.limits = limits
        self.options = options
    }

    /// The leaf certificate, if any was presented.
    public var leaf: DERCertificate? { chain.first }

    /// The same trust with ``anchors`` replaced (and anchors-only as given).
    public func settingAnchors(_ anchors: [DERCertificate], only: Bool = true) -> ServerTrust {
        var copy = self
        copy.anchors = anchors
        copy.anchorsOnly = only
        return copy
    }

    /// The same trust under another validation policy.
    public func withPolicy(_ policy: TrustValidationPolicy) -> ServerTrust {
        var copy = self
        copy.policy = policy
        return copy
    }

    /// The anchors this evaluation trusts: ``anchors`` alone, ``anchors`` plus the system store,
    /// or the system store.
    /// - Throws: ``CertificateLoadingError`` when the system store is needed and cannot be read.
    public func effectiveAnchors() throws -> TrustStore {
        if let anchors, anchorsOnly { return TrustStore(anchors, origin: "the trust's own anchors") }
        let system = try systemStore ?? TrustStore.system
        guard let anchors else { return system }
        return system.adding(anchors)
    }

    /// Builds a path from the leaf to an anchor with swift-certificates' `Verifier` and checks it.
    public func evaluate() async -> TrustEvaluation {
        let time = evaluationTime ?? Date()
        let store: TrustStore
        do {
            store = try effectiveAnchors()
        } catch {
            return TrustEvaluation(
                outcome: .fatalFailure,
                failures: [TrustFailure(.trustStoreUnavailable, detail: String(describing: error))],
                policy: policy,
                evaluationTime: time,
                anchors: "unavailable",
                presentedChain: chain
            )
        }
        return await ServerTrustEngine(trust: self, anchors: store, time: time).run()
    }
}
