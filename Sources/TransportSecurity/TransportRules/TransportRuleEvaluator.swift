import Foundation
import X509

/// Adds a host's ``TransportRule`` to another evaluator (a policy, a trust manager): the other
/// evaluator decides first and its rejection stands; a server it trusts must then also pass the
/// rule's checks on the validated path (the anchor included): key sizes, signature hashes,
/// certificate transparency, `NSPinnedDomains` and the TrustKit pin set. Rules only tighten.
public struct TransportRuleEvaluator: ServerTrustEvaluating {
    /// The ``TrustDecision/decider`` of a decision where a rule rejects a server.
    public static let decider = TrustDecision.Decider.transportRules

    /// The evaluator that decides first.
    public let base: AnyServerTrustEvaluator
    /// The host's rule.
    public let rule: TransportRule
    /// How SCTs are checked where the rule requires certificate transparency; without it such a
    /// rule refuses every connection (fail closed).
    public let certificateTransparency: CertificateTransparencyPolicy?

    /// Creates the evaluator.
    public init(_ base: some ServerTrustEvaluating, rule: TransportRule, certificateTransparency: CertificateTransparencyPolicy? = nil) {
        self.base = AnyServerTrustEvaluator(base)
        self.rule = rule
        self.certificateTransparency = certificateTransparency
    }

    /// The base decision, then the rule's checks.
    public func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        let decision = await base.evaluate(trust, forHost: host)
        guard decision.isTrusted else { return decision }
        var checks = decision.checks
        func reject(_ reason: String, pinMismatch: PinMismatch? = nil) -> TrustDecision {
            checks.append(TrustCheck(name: "transport rule for \(rule.host)", passed: false, detail: reason))
            return TrustDecision(isTrusted: false, decider: Self.decider, reason: reason, checks: checks, pinMismatch: pinMismatch)
        }
        // A path validated to the system store by the rule itself, when the evaluator trusted the
        // server without one.
        var defaultPath: [DERCertificate]?
        let baseValidated = decision.lastEvaluation?.isTrusted == true
        if rule.requiresDefaultTrust {
            // The evaluator may have trusted the server without validating it (or against
            // anchors of its own): ATS's default evaluation still has to pass. The chain is the
            // path the evaluator validated, when it did, and then what was presented: an
            // evaluator that completed the chain (fetched intermediates) keeps its certificates,
            // each of which signs the one before it.
            var defaultTrust = trust.withPolicy(.ssl(host)).usingSystemStoreOnly()
            if baseValidated, let path = decision.lastEvaluation?.path {
                defaultTrust.chain = path + trust.chain.filter { !path.contains($0) }
            }
            let evaluation = await defaultTrust.evaluate()
            checks.append(TrustCheck(name: "default trust required by the transport rule (ATS)", evaluation: evaluation))
            guard evaluation.isTrusted else {
                return reject("ATS is enforced for \(rule.host) (rule from \(rule.originDescription)), and the chain does not validate to a trusted anchor of the system store for the host, whatever the evaluator decided: \(evaluation.summary) (rules only tighten: a private CA belongs in the system store the evaluation uses; an exception's NSExceptionAllowsInsecureHTTPLoads lets the app loosen trust for the domain, and allows cleartext to it too)")
            }
            if !baseValidated { defaultPath = evaluation.path }
        }
        let path = defaultPath ?? decision.checkedPath(of: trust)
        let validated = baseValidated || defaultPath != nil
        let time = trust.evaluationTime ?? Date()
        if rule.checksKeySizes, let weak = path.lazy.compactMap(Self.weakKey).first {
            return reject("\(weak); ATS requires RSA keys of 2048 bits or more and EC keys of 256 bits or more (NSExceptionRequiresForwardSecrecy = false relaxes this for the domain)")
        }
        if rule.checksSignatureHashes {
            // The anchor's own signature is not relied on.
            let signed = validated ? Array(path.dropLast()) : path
            if let weak = signed.lazy.compactMap(Self.weakSignature).first {
                return reject("\(weak); ATS requires signatures with SHA-256 or better")
            }
        }
        if rule.requiresCertificateTransparency {
            guard let certificateTransparency else {
                return reject("certificate transparency is required (NSRequiresCertificateTransparency) and no CT log list is configured, so the connection is refused")
            }
            let verdict = certificateTransparency.verdict(on: path, at: time)
            guard verdict.isCompliant else {
                return reject("certificate transparency is required (NSRequiresCertificateTransparency): \(verdict.reason)")
            }
            checks.append(TrustCheck(name: "certificate transparency", passed: true, detail: ([verdict.reason] + verdict.timestamps).joined(separator: "; ")))
        }
        // Pins match a validated path only (computed when a pin is to be matched).
        let pinnable: PinnablePath
        if rule.pinnedDomain == nil && rule.pinSet == nil {
            pinnable = .unneeded
        } else if let defaultPath {
            pinnable = PinnablePath(certificates: defaultPath, isValidated: true, search: nil)
        } else {
            pinnable = await decision.pinnablePath(of: trust)
        }
        // A path the rule validated bounds the decision's reuse as the evaluator's own would.
        let reusableUntil = TrustDecision.earlier(pinnable.validUntil, defaultPath?.earliestExpiry)
        if let search = pinnable.search { checks.append(search) }
        if let pinned = rule.pinnedDomain {
            let domain = "NSPinnedDomains.\(pinned.keysDescription)"
            if let ca = pinned.caIdentities {
                // CA identities match a certificate of the validated path (Apple's own check runs
                // inside path validation): a chain that did not validate proves no CA.
                let authorities = Array(pinnable.certificates.dropFirst())
                if !authorities.contains(where: { ca.contains($0.spkiPin) }) {
                    let mismatch = PinMismatch(mode: .publicKey, host: host, considered: authorities, expected: ca.map(PinMismatch.Entry.init(pin:)))
                    guard pinnable.isValidated else {
                        return reject("\(domain).NSPinnedCAIdentities needs a validated path, and the chain did not validate (the server was trusted without one), so none of its CA certificates counts", pinMismatch: mismatch)
                    }
                    return reject("no CA certificate of the path carries a key of \(domain).NSPinnedCAIdentities", pinMismatch: mismatch)
                }
            }
            if let leaf = pinned.leafIdentities {
                guard let first = path.first, leaf.contains(first.spkiPin) else {
                    return reject("the leaf's key is not in \(domain).NSPinnedLeafIdentities",
                                  pinMismatch: PinMismatch(mode: .publicKey, host: host, considered: Array(path.prefix(1)), expected: leaf.map(PinMismatch.Entry.init(pin:))))
                }
            }
            checks.append(TrustCheck(name: "NSPinnedDomains \(pinned.keysDescription)", passed: true, detail: "a pinned key is in the path"))
        }
        if let set = rule.pinSet {
            switch set.verdict(on: pinnable, host: host, at: time) {
            case .satisfied:
                break
            case .rejected(let reason, let mismatch):
                return reject(reason, pinMismatch: mismatch)
            case .reportOnly(let mismatch):
                checks.append(TrustCheck(name: "pin set \(set.key) (report-only)", passed: false, detail: "no pinned key in the path; reported, not enforced"))
                return decision.stillTrusted(checks: checks, pinMismatch: mismatch, note: "report-only pin set \(set.key) failed", reusableUntil: reusableUntil)
            }
        }
        return decision.stillTrusted(checks: checks, reusableUntil: reusableUntil)
    }

    /// `CN=…: RSA 1024-bit key` when a key is too small for ATS.
    static func weakKey(_ certificate: DERCertificate) -> String? {
        let (type, bits) = CertificateDetails.key(certificate.certificate.publicKey)
        let tooSmall = (type == "RSA" && bits < 2048) || (type.hasPrefix("EC") && bits < 256)
        return tooSmall ? "\(certificate.subjectSummary): \(type) \(bits)-bit key" : nil
    }

    /// `CN=…: signed with sha1WithRSAEncryption` when a signature hash is weaker than SHA-256.
    static func weakSignature(_ certificate: DERCertificate) -> String? {
        let strong: Set<Certificate.SignatureAlgorithm> = [
            .sha256WithRSAEncryption, .sha384WithRSAEncryption, .sha512WithRSAEncryption,
            .ecdsaWithSHA256, .ecdsaWithSHA384, .ecdsaWithSHA512, .ed25519,
        ]
        let algorithm = certificate.certificate.signatureAlgorithm
        return strong.contains(algorithm) ? nil : "\(certificate.subjectSummary): signed with \(String(describing: algorithm).replacingOccurrences(of: "SignatureAlgorithm.", with: ""))"
    }
}
