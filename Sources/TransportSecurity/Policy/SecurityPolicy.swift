import Foundation

/// AFNetworking's `AFSecurityPolicy`, with its exact semantics (the six rules of <doc:EvaluationSemantics>): a pinning mode, pinned
/// certificates (and their public keys), `allowInvalidCertificates` and `validatesDomainName`.
///
/// ```swift
/// let policy = try SecurityPolicy(pinningMode: .publicKey, certificatesInDirectory: "pins")
/// let decision = await policy.evaluate(serverTrust, forDomain: "api.example.com")
/// if !decision.isTrusted { print(decision) }   // which rule, what was checked, pins seen/expected
/// ```
///
/// ``evaluate(_:forDomain:)`` applies six rules, in order, and reports which one decided.
public struct SecurityPolicy: Sendable, Hashable {
    /// The six rules of a policy's evaluation, in the order they are applied.
    public enum Rule: Int, Sendable, Hashable, Codable, CustomStringConvertible {
        /// 1: a domain, allowInvalidCertificates, validatesDomainName and no pinned certificate: reject.
        case domainValidationRequiresPinning = 1
        /// 2: the validation policy is `ssl(domain)` or `basicX509` (never decides).
        case validationPolicy = 2
        /// 3: mode none: accept invalid certificates if allowed, else require system trust.
        case noPinning = 3
        /// 4: pinning modes: without allowInvalidCertificates, require system trust first.
        case systemTrustBeforePinning = 4
        /// 5: certificate mode: validate to the pinned certificates alone, then find one in the chain.
        case certificatePinning = 5
        /// 6: public-key mode: find a pinned key among the considered certificates.
        case publicKeyPinning = 6

        /// `rule N (name)`.
        public var description: String {
            switch self {
            case .domainValidationRequiresPinning: return "rule 1 (domain validation requires pinning)"
            case .validationPolicy: return "rule 2 (validation policy)"
            case .noPinning: return "rule 3 (no pinning)"
            case .systemTrustBeforePinning: return "rule 4 (system trust before pinning)"
            case .certificatePinning: return "rule 5 (certificate pinning)"
            case .publicKeyPinning: return "rule 6 (public-key pinning)"
            }
        }
    }

    /// How the server is pinned.
    public let pinningMode: SSLPinningMode
    /// The pinned certificates, without duplicates, in the order given.
    public let pinnedCertificates: [DERCertificate]
    /// The public keys of the pinned certificates, as SPKI pins.
    public let pinnedPublicKeys: Set<SPKIPin>
    /// Accept certificates that do not validate against the system store (self-signed, expired,
    /// wrong host) as far as the pinning mode allows. Default `false`.
    public var allowInvalidCertificates: Bool
    /// Check that the certificate names the domain. Default `true`.
    public var validatesDomainName: Bool

    /// The default policy: no pinning, system trust and hostname.
    public static let `default` = SecurityPolicy(pinningMode: .none)

    /// A policy with explicit pinned certificates.
    /// - Parameters:
    ///   - pinningMode: How to pin.
    ///   - pinnedCertificates: The certificates to pin (their public keys too).
    ///   - allowInvalidCertificates: See ``allowInvalidCertificates``.
    ///   - validatesDomainName: See ``validatesDomainName``.
    public init(
        pinningMode: SSLPinningMode,
        pinnedCertificates: [DERCertificate] = [],
        allowInvalidCertificates: Bool = false,
        validatesDomainName: Bool = true
    ) {
        var seen = Set<DERCertificate>()
        self.pinningMode = pinningMode
        self.pinnedCertificates = pinnedCertificates.filter { seen.insert($0).inserted }
        self.pinnedPublicKeys = Set(self.pinnedCertificates.map(\.spkiPin))
        self.allowInvalidCertificates = allowInvalidCertificates
        self.validatesDomainName = validatesDomainName
    }

    /// A policy whose pinned certificates are the *default pinned certificates*: every
    /// certificate file of a directory (the seeds' `certificatesInBundle:`), read once and shared.
    /// - Throws: ``DefaultPinnedCertificatesError`` naming every file that did not parse: such a
    ///   file is never silently dropped from the pins.
    public init(
        pinningMode: SSLPinningMode,
        certificatesInDirectory directory: String,
        allowInvalidCertificates: Bool = false,
        validatesDomainName: Bool = true
    ) throws {
        self.init(
            pinningMode: pinningMode,
            pinnedCertificates: try DefaultPinnedCertificates.shared.certificates(inDirectory: directory),
            allowInvalidCertificates: allowInvalidCertificates,
            validatesDomainName: validatesDomainName
        )
    }

    /// A policy whose pinned certificates are every certificate file of a bundle's resources.
    public init(
        pinningMode: SSLPinningMode,
        certificatesIn bundle: Bundle,
        subdirectory: String? = nil,
        allowInvalidCertificates: Bool = false,
        validatesDomainName: Bool = true
    ) throws {
        guard var directory = bundle.resourcePath else {
            throw CertificateLoadingError(source: bundle.bundlePath, reason: .unreadable("the bundle has no resources"))
        }
        if let subdirectory { directory = (directory as NSString).appendingPathComponent(subdirectory) }
        try self.init(
            pinningMode: pinningMode,
            certificatesInDirectory: directory,
            allowInvalidCertificates: allowInvalidCertificates,
            validatesDomainName: validatesDomainName
        )
    }

    /// Decides whether to trust `trust` for `domain`, by the six rules in order (<doc:EvaluationSemantics>).
    ///
    /// The trust's chain, system store, evaluation time and limits are used; its validation
    /// policy and anchors are set by the rules.
    /// - Parameters:
    ///   - trust: What the server presented.
    ///   - domain: The host connected to; `nil` skips rule 1 and the hostname check.
    public func evaluate(_ trust: ServerTrust, forDomain domain: String?) async -> TrustDecision {
        var run = SecurityPolicyEvaluation(policy: self, domain: domain)
        return await run.decide(trust)
    }

    /// Whether `trust` is trusted for `domain`: ``evaluate(_:forDomain:)``'s Boolean answer.
    public func evaluateServerTrust(_ trust: ServerTrust, forDomain domain: String?) async -> Bool {
        await evaluate(trust, forDomain: domain).isTrusted
    }
}

extension SecurityPolicy: CustomStringConvertible {
    /// `SecurityPolicy(mode: publicKey, pins: 2, allowInvalidCertificates: false, validatesDomainName: true)`.
    public var description: String {
        "SecurityPolicy(mode: \(pinningMode), pins: \(pinnedCertificates.count), allowInvalidCertificates: \(allowInvalidCertificates), validatesDomainName: \(validatesDomainName))"
    }
}
