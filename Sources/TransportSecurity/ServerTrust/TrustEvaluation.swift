import Foundation

/// The result of evaluating a ``ServerTrust``: trusted, a recoverable failure, or a fatal one,
/// with the validated path or the reasons.
public struct TrustEvaluation: Sendable, Hashable {
    /// The three results of Apple's `SecTrustEvaluate` that matter.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// A valid path to an anchor was found and every check passed.
        case trusted
        /// Not trusted, for reasons a user could knowingly override (expired, wrong host, unknown root).
        case recoverableFailure
        /// Not trusted, for reasons nobody should override (bad signature, constraint violation).
        case fatalFailure
    }

    /// The outcome.
    public let outcome: Outcome
    /// The validated path, leaf first and anchor last, when trusted; empty otherwise.
    public let path: [DERCertificate]
    /// Why the trust failed; empty when trusted. The failures of the candidate path that came
    /// closest, or of the chain itself when no path reached an anchor.
    public let failures: [TrustFailure]
    /// The validation policy used.
    public let policy: TrustValidationPolicy
    /// The time the evaluation was made for.
    public let evaluationTime: Date
    /// The anchors used, as a description ("/etc/ssl/certs/ca-certificates.crt (146 anchors)").
    public let anchors: String
    /// The chain evaluated, as the server presented it (leaf first), whatever the outcome.
    public let presentedChain: [DERCertificate]

    /// Whether the trust is trusted.
    public var isTrusted: Bool { outcome == .trusted }

    /// The anchor the validated path reached, when trusted.
    public var anchor: DERCertificate? { path.last }

    /// The earliest notAfter of the validated path: a cached decision must not outlive it.
    public var earliestExpiry: Date? { path.earliestExpiry }

    /// A sentence a person can act on.
    public var summary: String {
        switch outcome {
        case .trusted:
            return "trusted: \(path.first?.subjectSummary ?? "?") chains to \(anchor?.subjectSummary ?? "?") under \(policy)"
        case .recoverableFailure, .fatalFailure:
            let kind = outcome == .fatalFailure ? "not trusted (fatal)" : "not trusted"
            return "\(kind): " + failures.map(\.description).joined(separator: "; ") + Self.advice(for: failures)
        }
    }

    static func advice(for failures: [TrustFailure]) -> String {
        guard let first = failures.first else { return "" }
        switch first.code {
        case .expired, .notYetValid: return ". Check the server's certificate dates and this machine's clock."
        case .hostnameMismatch: return ". Connect with a name the certificate lists, or re-issue the certificate for this name."
        case .untrustedRoot: return ". Add the root to the anchors or trust store if, and only if, you trust it."
        case .missingIssuer: return ". The server must send its intermediate certificates, or the issuing CA must be an anchor."
        case .badSignature, .malformedCertificate, .constraintViolation, .unhandledCriticalExtension,
            .extendedKeyUsage, .leafIsCertificateAuthority, .misissued:
            return ". The certificate chain is invalid; it must be re-issued."
        case .weakKey: return ". The certificate must be re-issued with a stronger key (RSA of 2048 bits or more, or ECDSA)."
        case .weakSignature: return ". The certificate must be re-issued signed with SHA-256 or better."
        case .pathTooLong, .workBudgetExceeded: return ". The chain is too complex to validate; send a shorter chain."
        case .emptyChain: return ". The server must present a certificate."
        case .trustStoreUnavailable: return ". Set SSL_CERT_FILE or install the ca-certificates package."
        }
    }

    init(
        outcome: Outcome,
        path: [DERCertificate] = [],
        failures: [TrustFailure] = [],
        policy: TrustValidationPolicy,
        evaluationTime: Date,
        anchors: String,
        presentedChain: [DERCertificate]
    ) {
        self.outcome = outcome
        self.path = path
        self.failures = failures
        self.policy = policy
        self.evaluationTime = evaluationTime
        self.anchors = anchors
        self.presentedChain = presentedChain
    }
}
