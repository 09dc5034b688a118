import PKIBuilder
import Testing
import TransportSecurity

@Suite("Evaluators")
struct EvaluatorTests {
    let fixture = LabFixture.shared
    var lab: TrustLab { fixture.lab }

    @Test("default: system trust and hostname")
    func defaultEvaluator() async {
        #expect(await DefaultTrustEvaluator().evaluate(fixture.trust(.legitimate), forHost: fixture.host).isTrusted)
        #expect(await DefaultTrustEvaluator().evaluate(fixture.trust(.wrongHost), forHost: fixture.host).isTrusted == false)
        #expect(await DefaultTrustEvaluator(validatesHost: false).evaluate(fixture.trust(.wrongHost), forHost: fixture.host).isTrusted)
        #expect(await DefaultTrustEvaluator().evaluate(fixture.trust(.interceptingProxy), forHost: fixture.host).isTrusted)
    }

    @Test("pinned certificates: legitimate chain with its root pinned; the proxy is refused")
    func pinnedCertificates() async {
        let evaluator = PinnedCertificatesTrustEvaluator(certificates: [lab.root.der])
        #expect(await evaluator.evaluate(fixture.trust(.legitimate), forHost: fixture.host).isTrusted)
        let mitm = await evaluator.evaluate(fixture.trust(.interceptingProxy), forHost: fixture.host)
        #expect(mitm.isTrusted == false)
        #expect(mitm.pinMismatch?.mode == .certificate)
    }

    @Test("pinned certificates accepting self-signed: the pinned self-signed server validates")
    func pinnedSelfSigned() async {
        let strict = PinnedCertificatesTrustEvaluator(certificates: [lab.selfSigned.der])
        #expect(await strict.evaluate(fixture.trust(.selfSigned), forHost: fixture.host).isTrusted == false)
        let lenient = PinnedCertificatesTrustEvaluator(certificates: [lab.selfSigned.der], acceptsSelfSignedCertificates: true)
        #expect(await lenient.evaluate(fixture.trust(.selfSigned), forHost: fixture.host).isTrusted)
        #expect(await lenient.evaluate(fixture.trust(.untrustedRoot), forHost: fixture.host).isTrusted == false)
    }

    @Test("pinned certificates without default validation compare the presented chain only")
    func pinnedWithoutValidation() async {
        let evaluator = PinnedCertificatesTrustEvaluator(certificates: [lab.leaf.der], performsDefaultValidation: false)
        // The expired server re-uses the key but is a different certificate: not pinned.
        #expect(await evaluator.evaluate(fixture.trust(.expired), forHost: fixture.host).isTrusted == false)
        #expect(await evaluator.evaluate(fixture.trust(.legitimate), forHost: "anything").isTrusted)
    }

    @Test("public keys: pins survive a same-key re-issue, not a new key; mismatch lists seen and expected pins")
    func publicKeys() async throws {
        let evaluator = PublicKeysTrustEvaluator(pins: [lab.leaf.der.spkiPin, try SPKIPin(String(repeating: "A", count: 43) + "=")])
        #expect(await evaluator.evaluate(fixture.trust(.reissuedSameKey), forHost: fixture.host).isTrusted)
        let rejected = await evaluator.evaluate(fixture.trust(.reissuedNewKey), forHost: fixture.host)
        #expect(rejected.isTrusted == false)
        let mismatch = try #require(rejected.pinMismatch)
        #expect(mismatch.expected.count == 2)
        #expect(mismatch.presented.map(\.pin).contains(lab.intermediate.der.spkiPin))
        #expect(mismatch.presented.map(\.pin).contains(lab.root.der.spkiPin), "the anchor reached counts")
    }

    @Test("public keys without default validation accept an expired certificate with the pinned key")
    func publicKeysWithoutValidation() async {
        let evaluator = PublicKeysTrustEvaluator(certificates: [lab.leaf.der], performsDefaultValidation: false)
        #expect(await evaluator.evaluate(fixture.trust(.expired), forHost: fixture.host).isTrusted)
        #expect(await evaluator.evaluate(fixture.trust(.untrustedRoot), forHost: fixture.host).isTrusted == false)
    }

    @Test("empty pin sets reject")
    func emptyPins() async {
        #expect(await PublicKeysTrustEvaluator(pins: []).evaluate(fixture.trust(.legitimate), forHost: fixture.host).isTrusted == false)
        #expect(await PinnedCertificatesTrustEvaluator(certificates: []).evaluate(fixture.trust(.legitimate), forHost: fixture.host).isTrusted == false)
    }

    @Test("composite: all must pass; the first refusal decides")
    func composite() async {
        let composite = CompositeTrustEvaluator([
            DefaultTrustEvaluator(),
            PublicKeysTrustEvaluator(certificates: [lab.root.der]),
        ])
        #expect(await composite.evaluate(fixture.trust(.legitimate), forHost: fixture.host).isTrusted)
        let proxy = await composite.evaluate(fixture.trust(.interceptingProxy), forHost: fixture.host)
        #expect(proxy.isTrusted == false)
        #expect(proxy.decidedBy.contains("PublicKeysTrustEvaluator"))
        #expect(proxy.decider == .composite("CompositeTrustEvaluator", .evaluator("PublicKeysTrustEvaluator")))
        #expect(await CompositeTrustEvaluator([]).evaluate(fixture.trust(.legitimate), forHost: fixture.host).isTrusted == false)
    }

    @Test("a composite and a trust manager keep how long the decisions behind them may be reused")
    func reuseBoundsPassThrough() async throws {
        let soon = fixture.now.addingTimeInterval(60)
        let later = fixture.now.addingTimeInterval(600)
        let composite = CompositeTrustEvaluator([
            FixedDecisionEvaluator(decision: TrustDecision(isTrusted: true, decider: .evaluator("a"), reason: "a", reusableUntil: later)),
            FixedDecisionEvaluator(decision: TrustDecision(isTrusted: true, decider: .evaluator("b"), reason: "b", reusableUntil: soon, isProvisional: true)),
            FixedDecisionEvaluator(decision: TrustDecision(isTrusted: true, decider: .evaluator("c"), reason: "c")),
        ])
        let combined = await composite.evaluate(fixture.trust(.legitimate), forHost: fixture.host)
        #expect(combined.isTrusted)
        #expect(combined.reusableUntil == soon, "the earliest bound")
        #expect(combined.isProvisional, "provisional if any part is")

        let refused = TrustDecision(isTrusted: false, decider: .evaluator("d"), reason: "d", reusableUntil: soon)
        let refusal = await CompositeTrustEvaluator([composite, FixedDecisionEvaluator(decision: refused)])
            .evaluate(fixture.trust(.legitimate), forHost: fixture.host)
        #expect(!refusal.isTrusted)
        #expect(refusal.reusableUntil == soon)

        let manager = try ServerTrustManager(evaluators: ["api.example.test": composite])
        let managed = await manager.evaluate(fixture.trust(.legitimate), forHost: "api.example.test")
        #expect(managed.decidedBy.hasPrefix("api.example.test → "))
        #expect(managed.reusableUntil == soon)
        #expect(managed.isProvisional)
    }

    @Test("the disabled evaluator accepts anything and says it is insecure")
    func disabled() async {
        let decision = await InsecureDisabledTrustEvaluator().evaluate(fixture.trust(.untrustedRoot), forHost: fixture.host)
        #expect(decision.isTrusted)
        #expect(decision.reason.hasPrefix("INSECURE"))
    }

    @Test("the security policy is itself an evaluator")
    func policyAsEvaluator() async {
        let evaluator: any ServerTrustEvaluating = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [lab.root.der])
        #expect(await evaluator.evaluate(fixture.trust(.legitimate), forHost: fixture.host).isTrusted)
        #expect(await evaluator.evaluate(fixture.trust(.interceptingProxy), forHost: fixture.host).isTrusted == false)
    }

    @Test("type-erased evaluators compare by the evaluator they wrap")
    func erasure() {
        let a = AnyServerTrustEvaluator(DefaultTrustEvaluator())
        #expect(a == AnyServerTrustEvaluator(DefaultTrustEvaluator()))
        #expect(a != AnyServerTrustEvaluator(DefaultTrustEvaluator(validatesHost: false)))
        #expect(a != AnyServerTrustEvaluator(InsecureDisabledTrustEvaluator()))
        #expect(AnyServerTrustEvaluator(a) == a)
        #expect(a.hashValue == AnyServerTrustEvaluator(DefaultTrustEvaluator()).hashValue)
    }

    @Test("separate wrappings of equal policies are equal and hash alike; different pins are not equal")
    func erasureOfPolicies() {
        let pinned = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der])
        let existential: any ServerTrustEvaluating = pinned
        let first = AnyServerTrustEvaluator(pinned)
        let second = AnyServerTrustEvaluator(existential)
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(Set([first, second]).count == 1)
        let otherPin = AnyServerTrustEvaluator(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.leaf.der]))
        #expect(first != otherPin)
        var relaxed = pinned
        relaxed.validatesDomainName = false
        #expect(first != AnyServerTrustEvaluator(relaxed))
        #expect(AnyServerTrustEvaluator(existential as! SecurityPolicy) == first)
        let erasedTwice: any ServerTrustEvaluating = first
        #expect(AnyServerTrustEvaluator(erasedTwice) == first)
        #expect(AnyServerTrustEvaluator(erasedTwice).description == "SecurityPolicy")
    }
}

/// Answers every evaluation with the same decision.
struct FixedDecisionEvaluator: ServerTrustEvaluating {
    let decision: TrustDecision

    func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision { decision }
}
