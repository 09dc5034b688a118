/// Some certificate of the validated chain must be one of the pinned certificates, byte for byte.
///
/// With ``acceptsSelfSignedCertificates`` the pinned certificates are added to the anchors, so a
/// server whose own certificate is pinned validates; with ``performsDefaultValidation`` the chain
/// must validate (to the system store, and to the pins when self-signed certificates are
/// accepted) before the pins are compared with the certificates of the validated path (a
/// certificate sent beside the path is not compared). Without validation, the leaf and the
/// presented certificates signature-linked above it are compared: a genuine pinned certificate
/// appended after an attacker's own leaf signs nothing of it, and counts for nothing.
public struct PinnedCertificatesTrustEvaluator: ServerTrustEvaluating {
    /// The pinned certificates.
    public let certificates: [DERCertificate]
    /// Add the pinned certificates to the anchors.
    public let acceptsSelfSignedCertificates: Bool
    /// Validate the chain before comparing.
    public let performsDefaultValidation: Bool
    /// Check the hostname during validation.
    public let validatesHost: Bool

    /// Creates the evaluator.
    public init(
        certificates: [DERCertificate],
        acceptsSelfSignedCertificates: Bool = false,
        performsDefaultValidation: Bool = true,
        validatesHost: Bool = true
    ) {
        self.certificates = certificates
        self.acceptsSelfSignedCertificates = acceptsSelfSignedCertificates
        self.performsDefaultValidation = performsDefaultValidation
        self.validatesHost = validatesHost
    }

    /// Validates `trust` (when ``performsDefaultValidation``), then trusts it when a certificate
    /// of the validated path (else the leaf or a certificate signature-linked above it) is one of
    /// ``certificates``; a mismatch
    /// lists the certificates considered and those expected.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        guard !certificates.isEmpty else {
            return TrustDecision(isTrusted: false, decider: .evaluator(evaluatorName), reason: "no certificates are pinned")
        }
        var checks: [TrustCheck] = []
        var considered: [DERCertificate]
        if performsDefaultValidation {
            let anchored = acceptsSelfSignedCertificates ? trust.settingAnchors(certificates, only: false) : trust
            let validation: TrustValidationPolicy = validatesHost ? .ssl(host) : .ssl(host: nil)
            let evaluation = await validate(anchored, under: validation, named: "trust under \(validation)", into: &checks)
            guard evaluation.isTrusted else {
                return TrustDecision(isTrusted: false, decider: .evaluator(evaluatorName), reason: evaluation.summary, checks: checks)
            }
            // The validated path, not the presented chain: a certificate sent beside the path
            // proves nothing (OkHttp's CVE-2016-2402).
            considered = evaluation.path
        } else {
            let linked = trust.signatureLinkedChain
            checks.append(linked.check)
            considered = linked.certificates
        }
        guard let match = considered.first(where: certificates.contains) else {
            return TrustDecision(
                isTrusted: false,
                decider: .evaluator(evaluatorName),
                reason: "no certificate of the chain is a pinned certificate",
                checks: checks,
                pinMismatch: PinMismatch(
                    mode: .certificate,
                    host: host,
                    considered: considered,
                    expected: certificates.map(PinMismatch.Entry.init)
                )
            )
        }
        checks.append(TrustCheck(name: "certificate pin", passed: true, detail: "\(match.subjectSummary) is pinned"))
        return TrustDecision(isTrusted: true, decider: .evaluator(evaluatorName), reason: "\(match.subjectSummary) is a pinned certificate", checks: checks)
    }
}
