import TransportSecurity

/// `tsec evaluate --anchors`: a raw server-trust evaluation against the given anchors (alone, or
/// with the system store), no pinning policy; as an evaluator so that a saved chain and a live
/// server's handshake are judged alike.
struct AnchorsTrustEvaluator: ServerTrustEvaluating {
    /// The anchors the chain must reach.
    let anchors: [DERCertificate]
    /// Whether only the anchors are trusted (else the system store too).
    let anchorsOnly: Bool
    /// What is checked besides the path (the host named on the command line, if any, whatever
    /// host the evaluation is asked about).
    let validation: TrustValidationPolicy

    func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        let evaluation = await trust.settingAnchors(anchors, only: anchorsOnly).withPolicy(validation).evaluate()
        return TrustDecision(
            isTrusted: evaluation.isTrusted,
            decider: .evaluator("server trust against \(evaluation.anchors)"),
            reason: evaluation.summary,
            checks: [TrustCheck(name: "trust under \(validation)", evaluation: evaluation)]
        )
    }
}
