/// How a server that requires client certificates judges them (the server side of mutual TLS):
/// the client's chain must validate under ``TrustValidationPolicy/sslClient`` to one of the
/// server's own client CAs, and, when pins are given, some certificate of the validated path
/// must carry a pinned public key.
///
/// The host argument of ``evaluate(_:forHost:)`` is ignored: a client is not identified by a
/// host name.
public struct ClientCertificateEvaluator: ServerTrustEvaluating {
    /// The CAs whose clients are accepted: the only anchors.
    public let clientCAs: [DERCertificate]
    /// Public keys one of which the client's validated path must carry; empty accepts any.
    public let pins: Set<SPKIPin>

    /// Creates the evaluator.
    public init(clientCAs: [DERCertificate], pins: some Sequence<SPKIPin> = []) {
        self.clientCAs = clientCAs
        self.pins = Set(pins)
    }

    /// Trusts a client whose chain validates to ``clientCAs`` for client authentication and,
    /// when ``pins`` is not empty, whose validated path carries one of them; `host` is ignored.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        var checks: [TrustCheck] = []
        let anchored = trust.settingAnchors(clientCAs, only: true)
        let evaluation = await validate(anchored, under: .sslClient, named: "client trust to the client CAs", into: &checks)
        guard evaluation.isTrusted else {
            return TrustDecision(isTrusted: false, decidedBy: evaluatorName, reason: evaluation.summary, checks: checks)
        }
        guard !pins.isEmpty else {
            return TrustDecision(isTrusted: true, decidedBy: evaluatorName, reason: "the client chain validates to \(evaluation.anchor?.subjectSummary ?? "a client CA")", checks: checks)
        }
        guard let match = evaluation.path.first(where: { pins.contains($0.spkiPin) }) else {
            return TrustDecision(
                isTrusted: false,
                decidedBy: evaluatorName,
                reason: "no certificate of the client's path carries a pinned public key",
                checks: checks,
                pinMismatch: PinMismatch(mode: .publicKey, host: nil, considered: evaluation.path, expected: pins.sorted().map(PinMismatch.Entry.init(pin:)))
            )
        }
        checks.append(TrustCheck(name: "public-key pin", passed: true, detail: "\(match.subjectSummary) has pinned key \(match.spkiPin)"))
        return TrustDecision(isTrusted: true, decidedBy: evaluatorName, reason: "\(match.subjectSummary) carries the pinned key \(match.spkiPin)", checks: checks)
    }
}
