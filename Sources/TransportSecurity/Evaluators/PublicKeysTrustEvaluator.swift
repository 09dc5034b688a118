/// Some certificate of the chain must carry a pinned public key (SPKI pin): OkHttp's
/// `CertificatePinner`, TrustKit's pins, Alamofire's `PublicKeysTrustEvaluator`.
///
/// With ``performsDefaultValidation`` (the default) the chain must first validate against the
/// system store, and the certificates compared are those of the validated path, its anchor
/// included: a certificate the server sends beside the path is not (it proves nothing, and
/// anyone can send the pinned CA's certificate). Without validation, the leaf and the presented
/// certificates signature-linked above it are compared: the handshake proves only the leaf's
/// key, so `[attacker's own leaf, the genuine leaf]` is refused (Alamofire, which compares
/// every presented certificate there, accepts it). With ``matchesLeafOnly`` only the leaf's key
/// is compared (curl's `--pinnedpubkey`).
public struct PublicKeysTrustEvaluator: ServerTrustEvaluating {
    /// The pinned keys.
    public let pins: Set<SPKIPin>
    /// Validate the chain before comparing.
    public let performsDefaultValidation: Bool
    /// Check the hostname during validation.
    public let validatesHost: Bool
    /// Compare the leaf's key only (curl's `--pinnedpubkey`), not the keys above it.
    public let matchesLeafOnly: Bool

    /// Creates the evaluator from pins.
    /// - Parameters:
    ///   - pins: The pinned keys.
    ///   - performsDefaultValidation: See ``performsDefaultValidation``.
    ///   - validatesHost: See ``validatesHost``.
    ///   - matchesLeafOnly: See ``matchesLeafOnly``.
    public init(pins: some Sequence<SPKIPin>, performsDefaultValidation: Bool = true, validatesHost: Bool = true, matchesLeafOnly: Bool = false) {
        self.pins = Set(pins)
        self.performsDefaultValidation = performsDefaultValidation
        self.validatesHost = validatesHost
        self.matchesLeafOnly = matchesLeafOnly
    }

    /// Creates the evaluator from the public keys of certificates.
    public init(certificates: [DERCertificate], performsDefaultValidation: Bool = true, validatesHost: Bool = true) {
        self.init(pins: certificates.map(\.spkiPin), performsDefaultValidation: performsDefaultValidation, validatesHost: validatesHost)
    }

    /// Validates `trust` (when ``performsDefaultValidation``), then trusts it when a certificate
    /// of the validated path (else the leaf or a certificate signature-linked above it) carries
    /// one of ``pins``; a mismatch lists the pins presented and those expected.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        guard !pins.isEmpty else {
            return TrustDecision(isTrusted: false, decider: .evaluator(evaluatorName), reason: "no public keys are pinned")
        }
        var checks: [TrustCheck] = []
        var considered = Array(trust.chain.prefix(1))
        if performsDefaultValidation {
            let validation: TrustValidationPolicy = validatesHost ? .ssl(host) : .ssl(host: nil)
            let evaluation = await validate(trust, under: validation, named: "trust under \(validation)", into: &checks)
            guard evaluation.isTrusted else {
                return TrustDecision(isTrusted: false, decider: .evaluator(evaluatorName), reason: evaluation.summary, checks: checks)
            }
            // The validated path, not the presented chain: a certificate sent beside the path
            // proves nothing (OkHttp's CVE-2016-2402).
            if !matchesLeafOnly { considered = evaluation.path }
        } else if !matchesLeafOnly {
            let linked = trust.signatureLinkedChain
            checks.append(linked.check)
            considered = linked.certificates
        }
        guard let match = considered.first(where: { pins.contains($0.spkiPin) }) else {
            return TrustDecision(
                isTrusted: false,
                decider: .evaluator(evaluatorName),
                reason: matchesLeafOnly ? "the leaf's public key is not pinned" : "no certificate of the chain carries a pinned public key",
                checks: checks,
                pinMismatch: PinMismatch(
                    mode: .publicKey,
                    host: host,
                    considered: considered,
                    expected: pins.sorted().map(PinMismatch.Entry.init(pin:))
                )
            )
        }
        checks.append(TrustCheck(name: "public-key pin", passed: true, detail: "\(match.subjectSummary) has pinned key \(match.spkiPin)"))
        return TrustDecision(isTrusted: true, decider: .evaluator(evaluatorName), reason: "\(match.subjectSummary) carries the pinned key \(match.spkiPin)", checks: checks)
    }
}
