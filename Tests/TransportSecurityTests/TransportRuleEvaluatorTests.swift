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

    func decide(_ chain: [IssuedCertificate], host: String? = nil, _ configuration: TransportSecurityConfiguration, anchors: [IssuedCertificate]? = nil) async -> TrustDecision {
        let host = host ?? lab.host
        let trust = ServerTrust(
            chain: chain.map(\.der),
            policy: .ssl(host),
            systemStore: anchors.map { TrustStore($0.map(\.der)) } ?? store,
            evaluationTime: lab.pki.now
        )
        return await TransportRuleEvaluator(SecurityPolicy.default, rule: configuration.rule(forHost: host)).evaluate(trust, forHost: host)
    }

    @Test("a SHA-1 signature in the path is refused where ATS applies, and passes where arbitrary loads turn ATS off")
    func signatureHash() async throws {
        let (root, leaf) = try lab.sha1SignedServer("sha1.example.test")
        let strict = await decide([leaf], host: "sha1.example.test", try rules([:]), anchors: [root])
        #expect(!strict.isTrusted)
        #expect(strict.decidedBy == TransportRuleEvaluator.decider)
        #expect(strict.reason.contains("signed with sha1WithRSAEncryption"))
        let relaxed = await decide([leaf], host: "sha1.example.test", try rules(["NSAllowsArbitraryLoads": true]), anchors: [root])
        #expect(relaxed.isTrusted, "\(relaxed.reason)")
    }

    @Test("the policy's rejection stands: rules never loosen it")
    func rulesOnlyTighten() async throws {
        let decision = await decide(lab.chain(.untrustedRoot), try rules(["NSAllowsArbitraryLoads": true]))
        #expect(!decision.isTrusted)
        #expect(decision.decidedBy != TransportRuleEvaluator.decider)
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
