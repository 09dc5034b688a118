/// How a server that requires client certificates judges them (the server side of mutual TLS):
/// the client's chain must validate under ``TrustValidationPolicy/sslClient`` to one of the
/// server's own client CAs; when pins are given, some certificate of the validated path must
/// carry a pinned public key; when names are given, the client's certificate must carry one of
/// them (a SPIFFE ID, a DNS name, an address, a common name: ``PeerNamePattern``).
///
/// ```swift
/// let evaluator = ClientCertificateEvaluator(
///     clientCAs: [meshCA],
///     allowedNames: [try PeerNamePattern("spiffe://payments.example/ns/checkout/*")]
/// )
/// ```
///
/// The host argument of ``evaluate(_:forHost:)`` is ignored: a client is not identified by a
/// host name.
public struct ClientCertificateEvaluator: ServerTrustEvaluating {
    /// The CAs whose clients are accepted: the only anchors.
    public let clientCAs: [DERCertificate]
    /// Public keys one of which the client's validated path must carry; empty accepts any.
    public let pins: Set<SPKIPin>
    /// Names one of which the client's certificate must carry; empty accepts any.
    public let allowedNames: [PeerNamePattern]

    /// Creates the evaluator.
    /// - Parameters:
    ///   - clientCAs: The CAs whose clients are accepted.
    ///   - pins: Public keys one of which the validated path must carry; empty for any.
    ///   - allowedNames: Names one of which the client's certificate must carry; empty for any.
    public init(clientCAs: [DERCertificate], pins: some Sequence<SPKIPin> = [], allowedNames: [PeerNamePattern] = []) {
        self.clientCAs = clientCAs
        self.pins = Set(pins)
        self.allowedNames = allowedNames
    }

    /// Trusts a client whose chain validates to ``clientCAs`` for client authentication, whose
    /// validated path carries one of ``pins`` (when there are any) and whose certificate carries
    /// one of ``allowedNames`` (when there are any); `host` is ignored.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        var checks: [TrustCheck] = []
        let anchored = trust.settingAnchors(clientCAs, only: true)
        let evaluation = await validate(anchored, under: .sslClient, named: "client trust to the client CAs", into: &checks)
        guard evaluation.isTrusted else {
            return TrustDecision(isTrusted: false, decider: .evaluator(evaluatorName), reason: evaluation.summary, checks: checks)
        }
        var reasons = ["the client chain validates to \(evaluation.anchor?.subjectSummary ?? "a client CA")"]
        if !pins.isEmpty {
            guard let match = evaluation.path.first(where: { pins.contains($0.spkiPin) }) else {
                return TrustDecision(
                    isTrusted: false,
                    decider: .evaluator(evaluatorName),
                    reason: "no certificate of the client's path carries a pinned public key",
                    checks: checks,
                    pinMismatch: PinMismatch(mode: .publicKey, host: nil, considered: evaluation.path, expected: pins.sorted().map(PinMismatch.Entry.init(pin:)))
                )
            }
            checks.append(TrustCheck(name: "public-key pin", passed: true, detail: "\(match.subjectSummary) has pinned key \(match.spkiPin)"))
            reasons = ["\(match.subjectSummary) carries the pinned key \(match.spkiPin)"]
        }
        if !allowedNames.isEmpty, let leaf = evaluation.path.first {
            let check = allowedNames.check(leaf, role: "client")
            checks.append(check)
            guard check.passed else {
                return TrustDecision(isTrusted: false, decider: .evaluator(evaluatorName), reason: check.detail, checks: checks)
            }
            reasons.append(check.detail)
        }
        return TrustDecision(isTrusted: true, decider: .evaluator(evaluatorName), reason: reasons.joined(separator: "; "), checks: checks)
    }
}
