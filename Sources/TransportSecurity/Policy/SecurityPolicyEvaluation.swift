/// One run of ``SecurityPolicy/evaluate(_:forDomain:)``: the six rules, in order,
/// recording every check on the way.
struct SecurityPolicyEvaluation {
    let policy: SecurityPolicy
    let domain: String?
    private(set) var checks: [TrustCheck] = []

    init(policy: SecurityPolicy, domain: String?) {
        self.policy = policy
        self.domain = domain
    }

    mutating func decide(_ trust: ServerTrust) async -> TrustDecision {
        // Rule 1.
        if domain != nil, policy.allowInvalidCertificates, policy.validatesDomainName,
            policy.pinningMode == .none || policy.pinnedCertificates.isEmpty
        {
            return reject(
                .domainValidationRequiresPinning,
                "validating the domain name of certificates that may be invalid (self-signed) requires pinned certificates; pin a certificate, or turn off allowInvalidCertificates or validatesDomainName"
            )
        }
        // Rule 2.
        let validation: TrustValidationPolicy = policy.validatesDomainName ? .ssl(domain) : .basicX509
        let systemTrust = trust.withPolicy(validation).usingSystemStoreOnly()

        // Rule 3.
        if policy.pinningMode == .none {
            if policy.allowInvalidCertificates {
                return accept(.noPinning, "no pinning and allowInvalidCertificates: the chain is not validated")
            }
            let evaluation = await record("system trust", systemTrust)
            guard evaluation.isTrusted else { return reject(.noPinning, evaluation.summary) }
            return accept(.noPinning, "the chain validates against the system store under \(validation)")
        }

        // Rule 4.
        let systemEvaluation = await record("system trust", systemTrust)
        if !systemEvaluation.isTrusted, !policy.allowInvalidCertificates {
            return reject(.systemTrustBeforePinning, systemEvaluation.summary)
        }

        switch policy.pinningMode {
        case .none:
            preconditionFailure("mode none was decided by rule 3")
        case .certificate:
            // Rule 5.
            let pinnedTrust = trust.withPolicy(validation).settingAnchors(policy.pinnedCertificates, only: true)
            let pinnedEvaluation = await record("trust to the pinned certificates alone", pinnedTrust)
            guard pinnedEvaluation.isTrusted else {
                return reject(
                    .certificatePinning,
                    "the chain does not validate to a pinned certificate: " + pinnedEvaluation.summary,
                    mismatch: certificateMismatch(considered: trust.chain)
                )
            }
            let considered = consideredCertificates(trust, after: pinnedEvaluation)
            guard let match = considered.first(where: { policy.pinnedCertificates.contains($0) }) else {
                return reject(
                    .certificatePinning,
                    "no certificate of the chain is a pinned certificate",
                    mismatch: certificateMismatch(considered: considered)
                )
            }
            checks.append(TrustCheck(name: "certificate pin", passed: true, detail: "\(match.subjectSummary) is pinned"))
            return accept(.certificatePinning, "the chain validates to the pinned certificate \(match.subjectSummary)")
        case .publicKey:
            // Rule 6.
            let considered = consideredCertificates(trust, after: systemEvaluation)
            guard let match = considered.first(where: { policy.pinnedPublicKeys.contains($0.spkiPin) }) else {
                let expected = policy.pinnedCertificates.map(PinMismatch.Entry.init)
                return reject(
                    .publicKeyPinning,
                    systemEvaluation.isTrusted
                        ? "no certificate of the chain carries a pinned public key"
                        : "no certificate of the chain carries a pinned public key (it did not validate, so only the leaf and the certificates signature-linked above it count)",
                    mismatch: PinMismatch(mode: .publicKey, host: domain, considered: considered, expected: expected)
                )
            }
            checks.append(
                TrustCheck(name: "public-key pin", passed: true, detail: "\(match.subjectSummary) has pinned key \(match.spkiPin)")
            )
            return accept(.publicKeyPinning, "\(match.subjectSummary) carries the pinned public key \(match.spkiPin)")
        }
    }

    /// After a successful validation, the validated path: the presented leaf, the presented
    /// certificates the path went through, and the anchor it reached (what SecTrust hands
    /// AFNetworking after evaluation). A certificate sent beside the path is not considered:
    /// anyone holding a valid chain from another CA could append the pinned CA's certificate
    /// (OkHttp's CVE-2016-2402). When validation failed (and allowInvalidCertificates let the
    /// evaluation go on), the leaf and the presented certificates signature-linked above it: an
    /// attacker's own leaf followed by the genuine certificates counts as the attacker's leaf
    /// alone (AFNetworking compared every presented certificate here).
    private mutating func consideredCertificates(_ trust: ServerTrust, after evaluation: TrustEvaluation) -> [DERCertificate] {
        if evaluation.isTrusted { return evaluation.path }
        let linked = trust.signatureLinkedChain
        checks.append(linked.check)
        return linked.certificates
    }

    private func certificateMismatch(considered: [DERCertificate]) -> PinMismatch {
        PinMismatch(
            mode: .certificate,
            host: domain,
            considered: considered,
            expected: policy.pinnedCertificates.map(PinMismatch.Entry.init)
        )
    }

    private mutating func record(_ name: String, _ trust: ServerTrust) async -> TrustEvaluation {
        let evaluation = await trust.evaluate()
        checks.append(TrustCheck(name: name, evaluation: evaluation))
        return evaluation
    }

    private func accept(_ rule: SecurityPolicy.Rule, _ reason: String) -> TrustDecision {
        TrustDecision(isTrusted: true, decider: .securityPolicy(rule), rule: rule, reason: reason, checks: checks)
    }

    private func reject(_ rule: SecurityPolicy.Rule, _ reason: String, mismatch: PinMismatch? = nil) -> TrustDecision {
        TrustDecision(
            isTrusted: false,
            decider: .securityPolicy(rule),
            rule: rule,
            reason: reason,
            checks: checks,
            pinMismatch: mismatch
        )
    }
}

extension ServerTrust {
    /// The same trust evaluated against the system store alone (no anchors of its own).
    func usingSystemStoreOnly() -> ServerTrust {
        var copy = self
        copy.anchors = nil
        return copy
    }
}
