import Foundation

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
    /// What was done to find the path when the decision had none (a validation without the host
    /// check), for the decision's checks; `nil` when the decision's own path was used.
    let search: TrustCheck?

    /// No certificate: nothing is pinned, so no path was looked for.
    static let unneeded = PinnablePath(certificates: [], isValidated: false, search: nil)

    /// The earliest `notAfter` of a path found here (a decision relying on it is reused no
    /// longer); `nil` when the decision's own path was used, which bounds it already.
    var validUntil: Date? {
        guard search != nil else { return nil }
        return certificates.earliestExpiry
    }
}

extension TrustDecision {
    /// The certificates pins are matched against: the validated path; or, when the decision was
    /// reached without one (a policy that allows invalid certificates), the path a validation
    /// without the host check finds now; when none validates, the presented leaf alone.
    func pinnablePath(of trust: ServerTrust) async -> PinnablePath {
        if let evaluation = lastEvaluation, evaluation.isTrusted {
            return PinnablePath(certificates: evaluation.path, isValidated: true, search: nil)
        }
        let evaluation = await trust.withPolicy(.basicX509).evaluate()
        let name = "path for the pins (the server was trusted without a validated path)"
        guard evaluation.isTrusted else {
            let detail = "no path validates (\(evaluation.summary)): only the leaf, whose key signed the handshake, counts"
            return PinnablePath(certificates: Array(trust.chain.prefix(1)), isValidated: false, search: TrustCheck(name: name, passed: false, detail: detail))
        }
        let detail = "validated without the host check: " + evaluation.path.map(\.subjectSummary).joined(separator: " → ")
        return PinnablePath(certificates: evaluation.path, isValidated: true, search: TrustCheck(name: name, passed: true, detail: detail))
    }
}
