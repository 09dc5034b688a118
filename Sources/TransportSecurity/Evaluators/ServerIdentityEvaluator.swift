/// Trusts a server known by the names its certificate carries rather than by the host dialled:
/// a service mesh's workload, whose X.509 SVID carries a SPIFFE ID and often no DNS name at all
/// (go-spiffe's `AuthorizeID`), or a partner's server reached at an address its certificate does
/// not list.
///
/// The chain must validate for a TLS server (the serverAuth EKU where the certificate has an
/// EKU; no host-name check) to ``anchors``, the trust bundle and the only anchors, and the
/// server's certificate must carry one of ``allowedNames``. With no allowed names it trusts
/// nothing: a server that only chains to a CA would be any server of that CA.
///
/// ```swift
/// let session = SecureSession(configuration: SecureSessionConfiguration(tls: .init(
///     trustEvaluator: ServerIdentityEvaluator(
///         anchors: meshBundle,
///         allowedNames: [try PeerNamePattern("spiffe://payments.example/ns/ledger/sa/api")]
///     )
/// )))
/// ```
public struct ServerIdentityEvaluator: ServerTrustEvaluating {
    /// The CAs the server's chain must validate to: the only anchors.
    public let anchors: [DERCertificate]
    /// Names one of which the server's certificate must carry.
    public let allowedNames: [PeerNamePattern]

    /// Creates the evaluator.
    /// - Parameters:
    ///   - anchors: The trust bundle.
    ///   - allowedNames: Names one of which the server's certificate must carry; at least one.
    public init(anchors: [DERCertificate], allowedNames: [PeerNamePattern]) {
        self.anchors = anchors
        self.allowedNames = allowedNames
    }

    /// Trusts a server whose chain validates to ``anchors`` for a TLS server and whose
    /// certificate carries one of ``allowedNames``; `host` is not matched (it only labels the
    /// decision).
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        guard !allowedNames.isEmpty else {
            return TrustDecision(
                isTrusted: false,
                decider: .evaluator(evaluatorName),
                reason: "no allowed server names: a server identified by name needs at least one, or any server of the CA would do"
            )
        }
        var checks: [TrustCheck] = []
        let anchored = trust.settingAnchors(anchors, only: true)
        let evaluation = await validate(anchored, under: .ssl(nil), named: "server trust to the trust bundle (no host name)", into: &checks)
        guard evaluation.isTrusted, let leaf = evaluation.path.first else {
            return TrustDecision(isTrusted: false, decider: .evaluator(evaluatorName), reason: evaluation.summary, checks: checks)
        }
        let check = allowedNames.check(leaf, role: "server")
        checks.append(check)
        return TrustDecision(isTrusted: check.passed, decider: .evaluator(evaluatorName), reason: check.detail, checks: checks)
    }
}
