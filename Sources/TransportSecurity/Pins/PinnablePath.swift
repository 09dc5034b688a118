/// The certificates a pin may match once an evaluator has trusted a server, and whether they are
/// a validated path.
///
/// A validated path (anchor included) proves each of its certificates. A chain that does not
/// validate proves only its leaf, whose key the TLS handshake used; its other certificates are
/// the server's say-so (anyone can send a real CA's certificate beside their own leaf), so
/// pins on CA keys never match them.
struct PinnablePath {
    /// Leaf first.
    let certificates: [DERCertificate]
    /// Whether ``certificates`` is a validated path (else it is the presented leaf alone).
    let isValidated: Bool
}

extension TrustDecision {
    /// The certificates pins are matched against: the validated path; or, when the decision was
    /// reached without one (a policy that allows invalid certificates), the path a validation
    /// without the host check finds now; when none validates, the presented leaf alone.
    func pinnablePath(of trust: ServerTrust) async -> PinnablePath {
        if let evaluation = lastEvaluation, evaluation.isTrusted { return PinnablePath(certificates: evaluation.path, isValidated: true) }
        let evaluation = await trust.withPolicy(.basicX509).evaluate()
        if evaluation.isTrusted { return PinnablePath(certificates: evaluation.path, isValidated: true) }
        return PinnablePath(certificates: Array(trust.chain.prefix(1)), isValidated: false)
    }
}
