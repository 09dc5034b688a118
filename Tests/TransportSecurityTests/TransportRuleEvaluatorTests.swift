import Foundation
import PKIBuilder
import TestServers
import Testing
import TransportSecurity
import X509

@Suite("Transport rules: the checks on a trusted server (TransportRuleEvaluator)")
struct TransportRuleEvaluatorTests {
    let lab = try! TrustLab()
    var store: TrustStore { TrustStore(lab.systemRoots.map(\.der), origin: "lab system store") }

    func rules(_ dictionary: [String: Any]) throws -> TransportSecurityConfiguration {
        try TransportSecurityConfiguration.load(from: JSONSerialization.data(withJSONObject: dictionary)).0
    }

    func decide(
        _ chain: [IssuedCertificate], host: String? = nil, _ configuration: TransportSecurityConfiguration, anchors: [IssuedCertificate]? = nil,
        base: some ServerTrustEvaluating = SecurityPolicy.default, options: TrustEvaluationOptions = .default
    ) async -> TrustDecision {
        let host = host ?? lab.host
        let trust = ServerTrust(
            chain: chain.map(\.der),
            policy: .ssl(host),
            systemStore: anchors.map { TrustStore($0.map(\.der)) } ?? store,
            evaluationTime: lab.pki.now,
            options: options
        )
        return await TransportRuleEvaluator(base, rule: configuration.rule(forHost: host)).evaluate(trust, forHost: host)
    }

    @Test("a SHA-1 signature in the path is refused everywhere; the insecure legacy switch lets it through only where arbitrary loads turn ATS off")
    func signatureHash() async throws {
        let (root, leaf) = try lab.sha1SignedServer("sha1.example.test")
        let strict = await decide([leaf], host: "sha1.example.test", try rules(["NSAllowsArbitraryLoads": true]), anchors: [root])
        #expect(!strict.isTrusted)
        #expect(strict.reason.contains("is signed with SHA-1 (sha1WithRSAEncryption), which is refused"), "\(strict.reason)")
        let legacy = TrustEvaluationOptions(insecurelyAllowsSHA1Signatures: true)
        let underATS = await decide([leaf], host: "sha1.example.test", try rules([:]), anchors: [root], options: legacy)
        #expect(!underATS.isTrusted)
        #expect(underATS.decider == TransportRuleEvaluator.decider)
        #expect(underATS.reason.contains("signed with sha1WithRSAEncryption"))
        let relaxed = await decide([leaf], host: "sha1.example.test", try rules(["NSAllowsArbitraryLoads": true]), anchors: [root], options: legacy)
        #expect(relaxed.isTrusted, "\(relaxed.reason)")
    }

    @Test(
        "enforced ATS cannot be loosened: allowInvalidCertificates, a disabled evaluator or a pinned self-signed anchor do not make a man in the middle trusted",
        arguments: ["allow-invalid", "disabled", "certificate-anchor"]
    )
    func atsCannotBeLoosened(_ loosening: String) async throws {
        let base: AnyServerTrustEvaluator
        switch loosening {
        case "allow-invalid": base = AnyServerTrustEvaluator(SecurityPolicy(pinningMode: .none, allowInvalidCertificates: true, validatesDomainName: false))
        case "disabled": base = AnyServerTrustEvaluator(InsecureDisabledTrustEvaluator())
        default: base = AnyServerTrustEvaluator(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [lab.selfSigned.der], allowInvalidCertificates: true))
        }
        // Each base trusts the self-signed man in the middle on its own.
        let trust = ServerTrust(chain: lab.chain(.selfSigned).map(\.der), policy: .ssl(lab.host), systemStore: store, evaluationTime: lab.pki.now)
        #expect(await base.evaluate(trust, forHost: lab.host).isTrusted)
        for enforcing in [[:], ["NSExceptionDomains": [lab.host: [:]]], ["NSAllowsLocalNetworking": false, "NSExceptionDomains": ["other.test": [:]]]] as [[String: Any]] {
            let decision = await decide(lab.chain(.selfSigned), try rules(enforcing), base: base)
            #expect(!decision.isTrusted, "\(loosening) under \(enforcing)")
            #expect(decision.decider == TransportRuleEvaluator.decider)
            #expect(decision.reason.contains("ATS is enforced for \(lab.host)") && decision.reason.contains("self-signed"), "\(decision.reason)")
            #expect(decision.checks.contains { $0.name == "default trust required by the transport rule (ATS)" && !$0.passed })
        }
        // The legitimate chain validates, so the same bases keep working under ATS.
        #expect(await decide(lab.chain(.legitimate), try rules([:]), base: base).isTrusted == (loosening != "certificate-anchor"))
        // Where the app may loosen trust (an exception allowing insecure loads, arbitrary loads
        // for the global keys), the base decides.
        let insecureException = try rules(["NSExceptionDomains": [lab.host: ["NSExceptionAllowsInsecureHTTPLoads": true]]])
        #expect(await decide(lab.chain(.selfSigned), insecureException, base: base).isTrusted)
        #expect(await decide(lab.chain(.selfSigned), try rules(["NSAllowsArbitraryLoads": true]), base: base).isTrusted)
        #expect(!(try rules(["NSAllowsArbitraryLoads": true]).rule(forHost: lab.host).requiresDefaultTrust))
        #expect(!insecureException.rule(forHost: lab.host).requiresDefaultTrust)
        #expect(try rules([:]).rule(forHost: lab.host).requiresDefaultTrust)
    }

    @Test("the policy's rejection stands: rules never loosen it")
    func rulesOnlyTighten() async throws {
        let decision = await decide(lab.chain(.untrustedRoot), try rules(["NSAllowsArbitraryLoads": true]))
        #expect(!decision.isTrusted)
        #expect(decision.decider != TransportRuleEvaluator.decider)
    }

    @Test("NSPinnedDomains: a CA pin matches the root the path reached (not sent by the server); a leaf pin the leaf; both must match")
    func pinnedDomains() async throws {
        func pinned(ca: [IssuedCertificate]? = nil, leaf: [IssuedCertificate]? = nil) throws -> TransportSecurityConfiguration {
            var entry: [String: Any] = [:]
            if let ca { entry["NSPinnedCAIdentities"] = ca.map { ["SPKI-SHA256-BASE64": String($0.der.spkiPin.description.dropFirst(7))] } }
            if let leaf { entry["NSPinnedLeafIdentities"] = leaf.map { ["SPKI-SHA256-BASE64": String($0.der.spkiPin.description.dropFirst(7))] } }
            return try rules(["NSPinnedDomains": [lab.host: entry]])
        }
        #expect(await decide(lab.chain(.legitimate), try pinned(ca: [lab.root])).isTrusted)
        #expect(await decide(lab.chain(.legitimate), try pinned(leaf: [lab.leaf])).isTrusted)
        #expect(await decide(lab.chain(.legitimate), try pinned(ca: [lab.root], leaf: [lab.leaf])).isTrusted)
        // The leaf's key is not a CA identity; the proxy's chain carries neither pin.
        let leafAsCA = await decide(lab.chain(.legitimate), try pinned(ca: [lab.leaf]))
        #expect(!leafAsCA.isTrusted)
        #expect(leafAsCA.reason.contains("NSPinnedCAIdentities"))
        let proxy = await decide(lab.chain(.interceptingProxy), try pinned(ca: [lab.root]))
        #expect(!proxy.isTrusted)
        #expect(proxy.pinMismatch?.expectedPins == [lab.root.der.spkiPin])
        // Both kinds: the CA matches but the leaf does not (a re-issued key).
        let reissued = await decide(lab.chain(.reissuedNewKey), try pinned(ca: [lab.root], leaf: [lab.leaf]))
        #expect(!reissued.isTrusted)
        #expect(reissued.reason.contains("NSPinnedLeafIdentities"))
        // The host's own entry (leaf pins) combines with its parent's (CA pins, subdomains
        // included): the parent's CA pin still has to match.
        func family(parentCA: IssuedCertificate) throws -> TransportSecurityConfiguration {
            try rules(["NSPinnedDomains": [
                "example.test": ["NSIncludesSubdomains": true, "NSPinnedCAIdentities": [["SPKI-SHA256-BASE64": String(parentCA.der.spkiPin.description.dropFirst(7))]]],
                lab.host: ["NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": String(lab.leaf.der.spkiPin.description.dropFirst(7))]]],
            ]])
        }
        #expect(await decide(lab.chain(.legitimate), try family(parentCA: lab.root)).isTrusted)
        let parentRefuses = await decide(lab.chain(.legitimate), try family(parentCA: lab.proxyRoot))
        #expect(!parentRefuses.isTrusted)
        #expect(parentRefuses.reason.contains("NSPinnedDomains.\(lab.host) + example.test.NSPinnedCAIdentities"), "\(parentRefuses.reason)")
    }

    @Test("without a validated path only the leaf is proven: CA pins (NSPinnedCAIdentities, pin sets) never match the CA certificates an unvalidated chain carries")
    func unvalidatedChains() async throws {
        // A policy that lets invalid chains through; the rules must not take the chain's word.
        let lenient = SecurityPolicy(pinningMode: .none, allowInvalidCertificates: true, validatesDomainName: false)
        // An impostor's self-signed leaf, sent with the real CA certificates (anyone can send them).
        let forged = lab.chain(.selfSigned) + [lab.intermediate, lab.root]
        let impostor = lab.chain(.selfSigned)[0]
        func entry(_ kind: String, _ certificate: IssuedCertificate) -> [String: Any] {
            [kind: [["SPKI-SHA256-BASE64": String(certificate.der.spkiPin.description.dropFirst(7))]]]
        }
        // Arbitrary loads: the app may loosen trust (under enforced ATS the chain must validate
        // whatever the policy says; `atsCannotBeLoosened`), so the pins alone stand between it
        // and the forged chain.
        func rules(_ dictionary: [String: Any]) throws -> TransportSecurityConfiguration {
            try self.rules(dictionary.merging(["NSAllowsArbitraryLoads": true]) { first, _ in first })
        }
        let caPinned = await decide(forged, try rules(["NSPinnedDomains": [lab.host: entry("NSPinnedCAIdentities", lab.root)]]), base: lenient)
        #expect(!caPinned.isTrusted)
        #expect(caPinned.decider == TransportRuleEvaluator.decider)
        #expect(caPinned.reason.contains("the chain did not validate"), "\(caPinned.reason)")
        #expect(caPinned.checks.contains { !$0.passed && $0.detail.hasPrefix("no path validates") }, "the decision says why only the leaf counted")
        let backup = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        let pinSet = try rules(["TSKPinnedDomains": [lab.host: ["TSKPublicKeyHashes": [lab.intermediate.der.spkiPin.description, backup]]]])
        let setPinned = await decide(forged, pinSet, base: lenient)
        #expect(!setPinned.isTrusted)
        #expect(setPinned.reason.contains("only its leaf counts"), "\(setPinned.reason)")
        #expect(setPinned.pinMismatch?.presented.map(\.pin) == [impostor.der.spkiPin], "the pins seen are the proven ones")

        // The leaf's key is proven by the handshake: a leaf pin holds without validation.
        #expect(await decide(forged, try rules(["NSPinnedDomains": [lab.host: entry("NSPinnedLeafIdentities", impostor)]]), base: lenient).isTrusted)
        let leafSet = try rules(["TSKPinnedDomains": [lab.host: ["TSKPublicKeyHashes": [impostor.der.spkiPin.description, backup]]]])
        #expect(await decide(forged, leafSet, base: lenient).isTrusted)
        // A chain that does validate is judged on its validated path, whatever the policy allows,
        // and the decision says so and is reused no longer than that path is valid.
        let validated = await decide(lab.chain(.legitimate), try rules(["NSPinnedDomains": [lab.host: entry("NSPinnedCAIdentities", lab.root)]]), base: lenient)
        #expect(validated.isTrusted, "\(validated.reason)")
        let search = try #require(validated.checks.first { $0.name.hasPrefix("path for the pins") })
        #expect(search.passed && search.detail.hasPrefix("validated without the host check: "), "\(search)")
        let earliest = [lab.leaf, lab.intermediate, lab.root].map(\.certificate.notValidAfter).min()
        #expect(validated.reusableUntil == earliest)
        #expect(await decide(lab.chain(.legitimate), pinSet, base: lenient).isTrusted)

        // A pin set enforced through PinSetEvaluator (signed pin updates) reads the same path.
        let set = try #require(pinSet.rule(forHost: lab.host).pinSet)
        let trust = ServerTrust(chain: forged.map(\.der), policy: .ssl(lab.host), systemStore: store, evaluationTime: lab.pki.now)
        let updated = await PinSetEvaluator(lenient, pinSet: set, origin: "signed document v1").evaluate(trust, forHost: lab.host)
        #expect(!updated.isTrusted)
        #expect(updated.reason.contains("only its leaf counts"), "\(updated.reason)")
        #expect(updated.decider == PinSetEvaluator.decider)
        // Report-only: the same mismatch lets the server through, marked, with the pins seen.
        var reported = set
        reported.enforces = false
        let letThrough = await PinSetEvaluator(lenient, pinSet: reported, origin: "signed document v2").evaluate(trust, forHost: lab.host)
        #expect(letThrough.isTrusted, "\(letThrough.reason)")
        let marked = try #require(letThrough.checks.last)
        #expect(marked.name == "pin set \(set.key) (signed document v2) (report-only)" && !marked.passed)
        #expect(marked.detail == "no pinned key in the path; not enforced")
        #expect(letThrough.pinMismatch?.presented.map(\.pin) == [impostor.der.spkiPin])
        // A validated chain carrying the pinned intermediate satisfies the set.
        let legitimate = ServerTrust(chain: lab.chain(.legitimate).map(\.der), policy: .ssl(lab.host), systemStore: store, evaluationTime: lab.pki.now)
        let satisfied = await PinSetEvaluator(lenient, pinSet: set, origin: "built-in").evaluate(legitimate, forHost: lab.host)
        #expect(satisfied.isTrusted && satisfied.pinMismatch == nil)
        #expect(satisfied.checks.last?.name == "pin set \(set.key) (built-in)" && satisfied.checks.last?.detail == "a pinned key is in the path")
    }

    @Test("pin sets: enforced, report-only (let through, marked), expired (not enforced), refused at load (blocks)")
    func pinSets() async throws {
        let backup = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        func set(_ pins: [String], enforce: Bool = true, expires: String? = nil) throws -> TransportSecurityConfiguration {
            var entry: [String: Any] = ["TSKPublicKeyHashes": pins, "TSKEnforcePinning": enforce]
            if let expires { entry["TSKExpirationDate"] = expires }
            return try rules(["TSKPinnedDomains": [lab.host: entry]])
        }
        let rootPin = lab.root.der.spkiPin.description
        let leafPin = lab.leaf.der.spkiPin.description
        #expect(await decide(lab.chain(.legitimate), try set([rootPin, backup])).isTrusted)
        let enforced = await decide(lab.chain(.reissuedNewKey), try set([leafPin, backup]))
        #expect(!enforced.isTrusted)
        #expect(enforced.pinMismatch != nil)
        let reportOnly = await decide(lab.chain(.reissuedNewKey), try set([leafPin, backup], enforce: false))
        #expect(reportOnly.isTrusted)
        #expect(reportOnly.pinMismatch != nil)
        #expect(reportOnly.reason.contains("report-only pin set"))
        // The lab's clock is 2030-01-01: a set that expired in 2029 is not enforced.
        #expect(await decide(lab.chain(.reissuedNewKey), try set([leafPin, backup], expires: "2029-06-01")).isTrusted)
        #expect(!(await decide(lab.chain(.reissuedNewKey), try set([leafPin, backup], expires: "2031-06-01")).isTrusted))
        let refused = await decide(lab.chain(.legitimate), try set([rootPin]))
        #expect(!refused.isTrusted)
        #expect(refused.reason.contains("refused when loaded"))
    }

    @Test("certificate transparency required: refused without a log list (fail closed); with one, SCTs decide")
    func certificateTransparency() async throws {
        let required = try rules(["NSExceptionDomains": [lab.host: ["NSRequiresCertificateTransparency": true]]])
        let decision = await decide(lab.chain(.legitimate), required)
        #expect(!decision.isTrusted)
        #expect(decision.reason.contains("no CT log list is configured"))

        let logs = [TestCTLog(name: "Argon", operatorName: "Google"), TestCTLog(name: "Nimbus", operatorName: "Cloudflare")]
        let policy = CertificateTransparencyPolicy(logList: CTLogList(logs: logs.map { $0.entry() }))
        let logged = try lab.pki.issue(.server(lab.host), by: lab.intermediate, loggedBy: logs)
        let unlogged = try lab.pki.issue(.server(lab.host), by: lab.intermediate)
        for (leaf, expected) in [(logged, true), (unlogged, false)] {
            let trust = ServerTrust(chain: [leaf.der, lab.intermediate.der], policy: .ssl(lab.host), systemStore: store, evaluationTime: lab.pki.now)
            let ruled = await TransportRuleEvaluator(SecurityPolicy.default, rule: required.rule(forHost: lab.host), certificateTransparency: policy)
                .evaluate(trust, forHost: lab.host)
            #expect(ruled.isTrusted == expected, "\(ruled.reason)")
            if !expected { #expect(ruled.reason.contains("carries no SCTs")) }
        }
    }
}
