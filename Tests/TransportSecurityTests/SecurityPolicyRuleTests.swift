import PKIBuilder
import Testing
import TransportSecurity

/// Each branch of a policy's six rules, and what the decision says about it.
@Suite("Security policy rules")
struct SecurityPolicyRuleTests {
    let fixture = LabFixture.shared
    var lab: TrustLab { fixture.lab }

    @Test("defaults: mode none, no pins, invalid certificates refused, domain validated")
    func defaults() {
        let policy = SecurityPolicy.default
        #expect(policy.pinningMode == .none)
        #expect(policy.pinnedCertificates.isEmpty)
        #expect(policy.allowInvalidCertificates == false)
        #expect(policy.validatesDomainName == true)
    }

    @Test("pinned public keys are derived from the pinned certificates; duplicates drop")
    func derivedKeys() {
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.leaf.der, lab.root.der, lab.leaf.der])
        #expect(policy.pinnedCertificates == [lab.leaf.der, lab.root.der])
        #expect(policy.pinnedPublicKeys == [lab.leaf.der.spkiPin, lab.root.der.spkiPin])
    }

    @Test("rule 1 rejects a domain with allowInvalid + validatesDomain and no pins, whatever the chain")
    func rule1() async {
        for policy in [
            SecurityPolicy(pinningMode: .none, allowInvalidCertificates: true),
            SecurityPolicy(pinningMode: .certificate, allowInvalidCertificates: true),
            SecurityPolicy(pinningMode: .publicKey, allowInvalidCertificates: true),
        ] {
            let decision = await policy.evaluate(fixture.trust(.legitimate), forDomain: fixture.host)
            #expect(decision.isTrusted == false)
            #expect(decision.rule == .domainValidationRequiresPinning)
            #expect(decision.checks.isEmpty, "rule 1 decides before any evaluation")
            #expect(decision.reason.contains("requires pinned certificates"))
        }
    }

    @Test("rule 1 does not apply without a domain")
    func rule1WithoutDomain() async {
        let policy = SecurityPolicy(pinningMode: .none, allowInvalidCertificates: true)
        let decision = await policy.evaluate(fixture.trust(.selfSigned), forDomain: nil)
        #expect(decision.isTrusted)
        #expect(decision.rule == .noPinning)
    }

    @Test("rule 2: validatesDomainName selects ssl(domain), otherwise basicX509")
    func rule2() async {
        let checking = await SecurityPolicy.default.evaluate(fixture.trust(.legitimate), forDomain: fixture.host)
        #expect(checking.lastEvaluation?.policy == .ssl(fixture.host))
        var relaxed = SecurityPolicy.default
        relaxed.validatesDomainName = false
        let basic = await relaxed.evaluate(fixture.trust(.legitimate), forDomain: fixture.host)
        #expect(basic.lastEvaluation?.policy == .basicX509)
        let noDomain = await SecurityPolicy.default.evaluate(fixture.trust(.wrongHost), forDomain: nil)
        #expect(noDomain.lastEvaluation?.policy == .ssl(host: nil))
        #expect(noDomain.isTrusted)
    }

    @Test("an empty domain is not a missing one: it is checked and matches nothing (fails closed), and rule 1 applies to it")
    func emptyDomain() async {
        for empty in ["", "  "] {
            let decision = await SecurityPolicy.default.evaluate(fixture.trust(.legitimate), forDomain: empty)
            #expect(decision.isTrusted == false)
            #expect(decision.lastEvaluation?.failures.first?.code == .hostnameMismatch)
            #expect(decision.reason.contains("empty host name"), "\(decision.reason)")
        }
        let rule1 = await SecurityPolicy(pinningMode: .none, allowInvalidCertificates: true).evaluate(fixture.trust(.legitimate), forDomain: "")
        #expect(rule1.rule == .domainValidationRequiresPinning)
        #expect(TrustValidationPolicy.ssl(nil) == .ssl(host: nil))
        #expect(TrustValidationPolicy.ssl("") != .ssl(host: nil))
    }

    @Test("rule 3: mode none accepts a system-trusted chain and rejects with the evaluation's reason")
    func rule3() async {
        let accepted = await SecurityPolicy.default.evaluate(fixture.trust(.legitimate), forDomain: fixture.host)
        #expect(accepted.isTrusted)
        #expect(accepted.rule == .noPinning)
        #expect(accepted.decidedBy == "SecurityPolicy rule 3 (no pinning)")
        #expect(accepted.decider == .securityPolicy(.noPinning))
        let rejected = await SecurityPolicy.default.evaluate(fixture.trust(.expired), forDomain: fixture.host)
        #expect(rejected.rule == .noPinning)
        #expect(rejected.reason.contains("expired"))
        #expect(rejected.lastEvaluation?.failures.map(\.code) == [.expired])
    }

    @Test("rule 3: mode none with allowInvalid and no domain validation accepts without evaluating")
    func rule3AllowInvalid() async {
        let policy = SecurityPolicy(pinningMode: .none, allowInvalidCertificates: true, validatesDomainName: false)
        let decision = await policy.evaluate(fixture.trust(.untrustedRoot), forDomain: fixture.host)
        #expect(decision.isTrusted)
        #expect(decision.checks.isEmpty)
    }

    @Test("rule 4: pinning modes require system trust first unless invalid certificates are allowed")
    func rule4() async {
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.selfSigned.der])
        let decision = await policy.evaluate(fixture.trust(.selfSigned), forDomain: fixture.host)
        #expect(decision.isTrusted == false)
        #expect(decision.rule == .systemTrustBeforePinning)
        #expect(decision.pinMismatch == nil, "the pins were never compared")
    }

    @Test("rule 5: certificate pinning validates to the pins alone and reports the mismatch")
    func rule5() async {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [lab.root.der])
        let accepted = await policy.evaluate(fixture.trust(.legitimate), forDomain: fixture.host)
        #expect(accepted.isTrusted)
        #expect(accepted.rule == .certificatePinning)
        #expect(accepted.checks.map(\.name) == ["system trust", "trust to the pinned certificates alone", "certificate pin"])
        #expect(accepted.checks[1].evaluation?.policy == .ssl(fixture.host))
        #expect(accepted.checks[1].evaluation?.anchor == lab.root.der)

        let mitm = await policy.evaluate(fixture.trust(.interceptingProxy), forDomain: fixture.host)
        #expect(mitm.isTrusted == false)
        #expect(mitm.rule == .certificatePinning)
        let mismatch = try! #require(mitm.pinMismatch)
        #expect(mismatch.mode == .certificate)
        #expect(mismatch.presented.map(\.pin) == fixture.chain(.interceptingProxy).map(\.spkiPin))
        #expect(mismatch.expected.map(\.pin) == [lab.root.der.spkiPin])
        #expect(mismatch.description.contains("Certificate pinning failure!"))
        #expect(mismatch.description.contains(lab.root.der.sha256Fingerprint.map { String(format: "%02x", $0) }.joined()))
    }

    @Test("rule 5 checks dates and host against the pins even when invalid certificates are allowed")
    func rule5ChecksDatesAndHost() async {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [lab.root.der], allowInvalidCertificates: true)
        let expired = await policy.evaluate(fixture.trust(.expired), forDomain: fixture.host)
        #expect(expired.rule == .certificatePinning)
        #expect(expired.reason.contains("expired"))
        let wrongHost = await policy.evaluate(fixture.trust(.wrongHost), forDomain: fixture.host)
        #expect(wrongHost.reason.contains("not for \(fixture.host)"))
    }

    @Test("rule 6: a pinned root matches through the anchor the validation reached, not only the presented chain")
    func rule6ConsideredCertificates() async {
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der])
        let decision = await policy.evaluate(fixture.trust(.legitimate), forDomain: fixture.host)
        #expect(decision.isTrusted)
        #expect(decision.rule == .publicKeyPinning)
        #expect(decision.reason.contains("TransportSecurity Lab Root CA"))
    }

    @Test("rule 6: when validation failed and was allowed, only the presented chain is considered (fail closed)")
    func rule6FailClosed() async {
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der], allowInvalidCertificates: true)
        let decision = await policy.evaluate(fixture.trust(.expired), forDomain: fixture.host)
        #expect(decision.isTrusted == false)
        let mismatch = try! #require(decision.pinMismatch)
        #expect(mismatch.presented.count == 2, "leaf and intermediate only: the root was not reached")
        #expect(mismatch.description.contains("Public-key pinning failure!"))
        #expect(mismatch.description.contains(lab.root.der.spkiPin.description))
    }

    @Test("rules 5 and 6: a certificate sent beside the validated path is not considered (OkHttp's CVE-2016-2402: a valid chain from another CA with the pinned CA's certificate appended)")
    func certificatesBesideThePath() async throws {
        // The intercepting proxy's chain validates (its root is in the system store); the
        // pinned intermediate is public, so anyone can send it too.
        let proxy = lab.chain(.interceptingProxy)
        let padded = fixture.trust(chain: proxy + [lab.intermediate])
        for (policy, evaluator) in [
            (SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.intermediate.der]), "SecurityPolicy"),
            (SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.intermediate.der], allowInvalidCertificates: true), "SecurityPolicy, allowInvalidCertificates"),
        ] {
            let decision = await policy.evaluate(padded, forDomain: fixture.host)
            #expect(!decision.isTrusted, "\(evaluator)")
            #expect(decision.rule == .publicKeyPinning, "\(evaluator)")
            let mismatch = try #require(decision.pinMismatch)
            #expect(!mismatch.presented.map(\.pin).contains(lab.intermediate.der.spkiPin), "\(evaluator): the certificate beside the path is not among those considered")
        }
        let keys = await PublicKeysTrustEvaluator(certificates: [lab.intermediate.der]).evaluate(padded, forHost: fixture.host)
        #expect(!keys.isTrusted, "PublicKeysTrustEvaluator")
        let pinnedCertificate = await PinnedCertificatesTrustEvaluator(certificates: [lab.intermediate.der]).evaluate(padded, forHost: fixture.host)
        #expect(!pinnedCertificate.isTrusted, "PinnedCertificatesTrustEvaluator")
        // The legitimate chain, sent with the same extra certificate, still matches through its path.
        let legitimate = fixture.trust(chain: lab.chain(.legitimate) + [lab.intermediate])
        #expect(await SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.intermediate.der]).evaluate(legitimate, forDomain: fixture.host).isTrusted)
        #expect(await PublicKeysTrustEvaluator(certificates: [lab.intermediate.der]).evaluate(legitimate, forHost: fixture.host).isTrusted)
    }

    @Test("pinning modes with no pinned certificates reject (fail closed)")
    func emptyPins() async {
        for mode in [SSLPinningMode.publicKey, .certificate] {
            let decision = await SecurityPolicy(pinningMode: mode).evaluate(fixture.trust(.legitimate), forDomain: fixture.host)
            #expect(decision.isTrusted == false, "\(mode)")
        }
    }

    @Test("the Boolean convenience agrees with the decision")
    func booleanConvenience() async {
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.leaf.der])
        #expect(await policy.evaluateServerTrust(fixture.trust(.legitimate), forDomain: fixture.host))
        #expect(await policy.evaluateServerTrust(fixture.trust(.reissuedNewKey), forDomain: fixture.host) == false)
    }
}
