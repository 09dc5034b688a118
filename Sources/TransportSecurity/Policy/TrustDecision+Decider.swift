extension TrustDecision {
    /// What made a ``TrustDecision``, as data: code asks `decision.decider.final == .transportRules`
    /// instead of reading ``TrustDecision/decidedBy`` text.
    ///
    /// A decision reused from a ``DecisionCache`` keeps the decider that first made it.
    public indirect enum Decider: Sendable, Hashable, CustomStringConvertible {
        /// A rule of a ``SecurityPolicy``.
        case securityPolicy(SecurityPolicy.Rule)
        /// An evaluator that decided by itself, by its name (a type name such as
        /// `"PublicKeysTrustEvaluator"` for the evaluators of this package and of users).
        case evaluator(String)
        /// A per-domain transport rule (ATS semantics): its pins, TLS floor or default-trust
        /// requirement.
        case transportRules
        /// An updatable pin set (``PinSetEvaluator``).
        case pinSet
        /// Certificate transparency (``CertificateTransparencyEvaluator``).
        case certificateTransparency
        /// Revocation checking (``RevocationEvaluator``).
        case revocation
        /// A server-trust challenge handler's answer.
        case challengeHandler(ChallengeAnswer)
        /// The evaluator a ``ServerTrustManager`` chose for the host pattern, and what decided inside it.
        case hostPattern(String, Decider)
        /// A named combination of evaluators (``CompositeTrustEvaluator``), and the part that decided.
        case composite(String, Decider)
        /// The TLS bridge itself, before any evaluator could be asked (no server name, no chain).
        case peerVerifier

        /// What a server-trust challenge handler answered.
        public enum ChallengeAnswer: String, Sendable, Hashable {
            /// It answered with a credential (or without one, which rejects).
            case useCredential
            /// It cancelled the challenge.
            case cancelAuthenticationChallenge
            /// It rejected the protection space.
            case rejectProtectionSpace
        }

        /// The decider inside any host pattern or composite that led to it.
        public var final: Decider {
            switch self {
            case .hostPattern(_, let inner), .composite(_, let inner): return inner.final
            default: return self
            }
        }

        /// The text of ``TrustDecision/decidedBy``: `"SecurityPolicy rule 6 (public-key pinning)"`,
        /// `"transport rules"`, `"**.example.com → PublicKeysTrustEvaluator"`, …
        public var description: String {
            switch self {
            case .securityPolicy(let rule): return "SecurityPolicy \(rule)"
            case .evaluator(let name): return name
            case .transportRules: return "transport rules"
            case .pinSet: return "pin set"
            case .certificateTransparency: return "certificate transparency"
            case .revocation: return "revocation"
            case .challengeHandler(let answer): return "challenge handler: \(answer.rawValue)"
            case .hostPattern(let pattern, let inner), .composite(let pattern, let inner): return "\(pattern) → \(inner)"
            case .peerVerifier: return "PeerTrustVerifier"
            }
        }
    }
}
