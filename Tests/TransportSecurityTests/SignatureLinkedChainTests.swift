import Foundation
import PKIBuilder
import TestServers
import Testing
import TransportSecurity
import X509

/// Pinning without validation: the handshake proves only the leaf's key, so only the leaf and
/// the presented certificates signature-linked above it may match a pin. The attacks: the
/// genuine certificates appended after an attacker's own leaf (AFNetworking's hole), an
/// attacker's leaf naming the genuine intermediate as its issuer, a link signed with SHA-1, and
/// a chain of look-alike issuers to make the walk expensive.
@Suite("Pins without validation: only the leaf and what signed it count")
struct SignatureLinkedChainTests {
    let fixture = LabFixture.shared
    var lab: TrustLab { fixture.lab }

    func trust(_ chain: [IssuedCertificate], options: TrustEvaluationOptions = .default, systemStore: TrustStore? = nil) -> ServerTrust {
        ServerTrust(chain: chain.map(\.der), policy: .ssl(lab.host), systemStore: systemStore ?? fixture.systemStore, evaluationTime: lab.pki.now, options: options)
    }

    /// Every evaluator that pins without validating, pinning `pinned`.
    func unvalidatingEvaluators(pinning pinned: IssuedCertificate) -> [(String, AnyServerTrustEvaluator)] {
        [
            ("SecurityPolicy publicKey AC", AnyServerTrustEvaluator(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [pinned.der], allowInvalidCertificates: true))),
            ("SecurityPolicy publicKey AC, no domain", AnyServerTrustEvaluator(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [pinned.der], allowInvalidCertificates: true, validatesDomainName: false))),
            ("PublicKeysTrustEvaluator without validation", AnyServerTrustEvaluator(PublicKeysTrustEvaluator(certificates: [pinned.der], performsDefaultValidation: false))),
            ("PinnedCertificatesTrustEvaluator without validation", AnyServerTrustEvaluator(PinnedCertificatesTrustEvaluator(certificates: [pinned.der], performsDefaultValidation: false))),
        ]
    }

    @Test("an attacker's own leaf followed by the genuine leaf, intermediate and root is refused, whichever genuine certificate is pinned", arguments: ["leaf", "intermediate", "root"])
    func appendedGenuineChain(_ target: String) async throws {
        let pinned = target == "leaf" ? lab.leaf : target == "intermediate" ? lab.intermediate : lab.root
        let attacker = lab.attackerLeaf
        for chain in [lab.chain(.appendedGenuineChain), [attacker, lab.leaf], [attacker, lab.root, lab.intermediate, lab.leaf]] {
            for (name, evaluator) in unvalidatingEvaluators(pinning: pinned) {
                let decision = await evaluator.evaluate(trust(chain), forHost: lab.host)
                #expect(!decision.isTrusted, "\(name), \(target) pinned, \(chain.count) certificates")
                let considered = try #require(decision.checks.first { $0.name == "certificates considered for the pins" }, "\(name)")
                #expect(considered.detail.contains("for nothing, no signature linking"), "\(considered.detail)")
                #expect(decision.pinMismatch?.presented.map(\.pin) == [attacker.der.spkiPin], "\(name): only the attacker's leaf was considered")
            }
        }
    }

    @Test("what pinning without validation is for still works: a pinned self-signed server, an expired genuine chain, a pinned root the server sends")
    func legitimateUnvalidatedChains() async throws {
        for (name, evaluator) in unvalidatingEvaluators(pinning: lab.selfSigned) {
            #expect(await evaluator.evaluate(trust([lab.selfSigned]), forHost: lab.host).isTrusted, "\(name)")
        }
        let expired = lab.chain(.expired)
        for pinned in [lab.intermediate] {
            for (name, evaluator) in unvalidatingEvaluators(pinning: pinned) {
                let decision = await evaluator.evaluate(trust(expired), forHost: lab.host)
                #expect(decision.isTrusted, "\(name): the intermediate signed the expired leaf: \(decision.reason)")
            }
        }
        // The key pinned on the expired leaf (the same key as the genuine leaf).
        for (name, evaluator) in unvalidatingEvaluators(pinning: lab.leaf).prefix(3) {
            #expect(await evaluator.evaluate(trust(expired), forHost: lab.host).isTrusted, "\(name)")
        }
        // A root pin holds when the server sends the root, linked all the way up.
        for (name, evaluator) in unvalidatingEvaluators(pinning: lab.root) {
            let withRoot = await evaluator.evaluate(trust(expired + [lab.root]), forHost: lab.host)
            #expect(withRoot.isTrusted, "\(name): \(withRoot.reason)")
            let considered = try #require(withRoot.checks.first { $0.name == "certificates considered for the pins" })
            #expect(!considered.detail.contains("count for nothing"), "every presented certificate is linked: \(considered.detail)")
            #expect(!(await evaluator.evaluate(trust(expired), forHost: lab.host).isTrusted), "\(name): a root not sent is not proven")
        }
    }

    @Test("an attacker's leaf that names the genuine intermediate as its issuer is not linked to it: the name is right, the signature is not")
    func lookAlikeIssuer() async throws {
        let impostorCA = try lab.pki.issueRoot(.certificateAuthority("TransportSecurity Lab Issuing CA"))
        let forged = try lab.pki.issue(.server(lab.host), by: impostorCA)
        #expect(forged.certificate.issuer == lab.intermediate.certificate.subject)
        for target in [lab.intermediate, lab.root] {
            for (name, evaluator) in unvalidatingEvaluators(pinning: target) {
                let decision = await evaluator.evaluate(trust([forged, lab.intermediate, lab.root]), forHost: lab.host)
                #expect(!decision.isTrusted, "\(name)")
                #expect(decision.pinMismatch?.presented.map(\.pin) == [forged.der.spkiPin], "\(name)")
            }
        }
    }

    @Test("a link signed with SHA-1 does not count (it could be forged), unless the insecure legacy switch allows SHA-1")
    func sha1Link() async throws {
        let root = try lab.pki.issueRoot(.certificateAuthority("Legacy Root"), algorithm: .rsa2048)
        var profile = CertificateProfile.server(lab.host)
        profile.signatureAlgorithm = .sha1WithRSAEncryption
        let leaf = try lab.pki.issue(profile, by: root, algorithm: .rsa2048)
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [root.der], allowInvalidCertificates: true)
        let refused = await policy.evaluate(trust([leaf, root]), forDomain: lab.host)
        #expect(!refused.isTrusted)
        #expect(refused.pinMismatch?.presented.map(\.pin) == [leaf.der.spkiPin])
        let legacy = TrustEvaluationOptions(insecurelyAllowsSHA1Signatures: true)
        #expect(await policy.evaluate(trust([leaf, root], options: legacy), forDomain: lab.host).isTrusted)
    }

    @Test("the walk is bounded: a chain of many look-alike issuers that sign nothing is refused without checking every pair")
    func boundedWalk() async throws {
        let decoys = try (0..<40).map { _ in try lab.pki.issueRoot(.certificateAuthority("TransportSecurity Lab Issuing CA")) }
        let chain = [lab.leaf] + decoys + [lab.intermediate, lab.root]
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der], allowInvalidCertificates: true)
        // The genuine intermediate comes after 40 decoys of its name, past the walk's budget of
        // signature checks (4 per certificate the path may hold: 40 with the default limits).
        // Nothing validates (an empty system store), so the walk alone decides.
        let decision = await policy.evaluate(trust(chain, systemStore: .empty), forDomain: lab.host)
        #expect(!decision.isTrusted)
        #expect(decision.pinMismatch?.presented.map(\.pin) == [lab.leaf.der.spkiPin])
        // Within the budget, the link is found.
        let short = [lab.leaf] + decoys.prefix(5) + [lab.intermediate, lab.root]
        #expect(await policy.evaluate(trust(short, systemStore: .empty), forDomain: lab.host).isTrusted)
    }

    @Test("curl's --pinnedpubkey: with matchesLeafOnly only the leaf's key is compared, validated or not")
    func leafOnly() async throws {
        for validates in [true, false] {
            let leafPin = PublicKeysTrustEvaluator(pins: [lab.leaf.der.spkiPin], performsDefaultValidation: validates, matchesLeafOnly: true)
            let rootPin = PublicKeysTrustEvaluator(pins: [lab.root.der.spkiPin], performsDefaultValidation: validates, matchesLeafOnly: true)
            #expect(await leafPin.evaluate(trust(lab.chain(.legitimate)), forHost: lab.host).isTrusted)
            let refused = await rootPin.evaluate(trust(lab.chain(.legitimate)), forHost: lab.host)
            #expect(!refused.isTrusted)
            #expect(refused.reason == "the leaf's public key is not pinned")
            #expect(!(await leafPin.evaluate(trust(lab.chain(.appendedGenuineChain)), forHost: lab.host).isTrusted))
        }
    }
}
