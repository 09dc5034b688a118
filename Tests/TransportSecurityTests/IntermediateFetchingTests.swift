import Foundation
import PKIBuilder
import Testing
import TransportSecurity

/// Issuer certificates served from memory, per URL; a URL not listed fails.
private final class MemoryIssuerFetcher: IssuerCertificateFetching, @unchecked Sendable {
    private let lock = NSLock()
    private let served: [String: [UInt8]]
    private var askedURLs: [String] = []

    init(_ served: [String: [UInt8]]) { self.served = served }

    var asked: [String] { lock.withLock { askedURLs } }

    func issuerCertificates(at url: String) async throws -> [UInt8] {
        lock.withLock { askedURLs.append(url) }
        guard let bytes = served[url] else { throw FetchRefused(url: url) }
        return bytes
    }

    struct FetchRefused: Error, CustomStringConvertible {
        let url: String
        var description: String { "\(url) answered 404" }
    }
}

@Suite("Fetching missing intermediates (authority information access caIssuers)")
struct IntermediateFetchingTests {
    let fixture = LabFixture.shared
    var lab: TrustLab { fixture.lab }

    /// A leaf of the lab's intermediate that names `urls` as where its issuer is published.
    func leaf(caIssuers urls: [String]) throws -> IssuedCertificate {
        try lab.pki.issue(CertificateProfile.server(lab.host).pointingTo(caIssuers: urls), by: lab.intermediate)
    }

    @Test("a server that sends only its leaf is trusted once the issuer named by caIssuers is fetched (DER, or a PEM bundle); the decision names the URL and what came")
    func completesTheChain() async throws {
        let url = "http://ca.example.test/issuing.cer"
        let leaf = try leaf(caIssuers: ["ldap://ca.example.test/skipped", url])
        let trust = fixture.trust(chain: [leaf])
        let alone = await SecurityPolicy.default.evaluate(trust, forHost: lab.host)
        #expect(!alone.isTrusted)
        #expect(alone.lastEvaluation?.failures.first?.code == .missingIssuer)

        for served in [lab.intermediate.derBytes, Array(lab.intermediate.pemString.utf8)] {
            let fetcher = MemoryIssuerFetcher([url: served])
            let decision = await IntermediateFetchingEvaluator(SecurityPolicy.default, fetcher: fetcher).evaluate(trust, forHost: lab.host)
            #expect(decision.isTrusted, "\(decision)")
            #expect(fetcher.asked == [url], "only the http URL, once")
            let fetched = try #require(decision.checks.first)
            #expect(fetched.name == "issuer certificate from \(url)" && fetched.passed)
            #expect(fetched.detail.contains(lab.intermediate.der.subjectSummary))
            #expect(decision.lastEvaluation?.path == [leaf.der, lab.intermediate.der, lab.root.der])
        }
    }

    @Test("under transport rules that enforce ATS, a chain completed by fetched intermediates still passes the default trust the rules require")
    func completedChainUnderATS() async throws {
        let url = "http://ca.example.test/issuing.cer"
        let leaf = try leaf(caIssuers: [url])
        let trust = fixture.trust(chain: [leaf])
        let rules = TransportSecurityConfiguration()
        #expect(rules.rule(forHost: lab.host).requiresDefaultTrust)
        let fetching = IntermediateFetchingEvaluator(SecurityPolicy.default, fetcher: MemoryIssuerFetcher([url: lab.intermediate.derBytes]))
        let decision = await TransportRuleEvaluator(fetching, rule: rules.rule(forHost: lab.host)).evaluate(trust, forHost: lab.host)
        #expect(decision.isTrusted, "\(decision)")
        let required = try #require(decision.checks.first { $0.name == "default trust required by the transport rule (ATS)" })
        #expect(required.passed)
        // Nothing fetched: the leaf alone fails the rules' default trust as it fails the policy.
        let alone = await TransportRuleEvaluator(SecurityPolicy.default, rule: rules.rule(forHost: lab.host)).evaluate(trust, forHost: lab.host)
        #expect(!alone.isTrusted)
    }

    @Test("issuers are followed up the chain: a fetched intermediate lacking its own issuer gets it fetched too, within the bound")
    func followsIssuers() async throws {
        let upperURL = "http://ca.example.test/upper.cer"
        let lowerURL = "http://ca.example.test/lower.cer"
        let upper = try lab.pki.issue(CertificateProfile.certificateAuthority("Upper Issuing CA"), by: lab.root)
        let lower = try lab.pki.issue(CertificateProfile.certificateAuthority("Lower Issuing CA").pointingTo(caIssuers: [upperURL]), by: upper)
        let leaf = try lab.pki.issue(CertificateProfile.server(lab.host).pointingTo(caIssuers: [lowerURL]), by: lower)
        let served = [lowerURL: lower.derBytes, upperURL: upper.derBytes]
        let trust = fixture.trust(chain: [leaf])

        let fetcher = MemoryIssuerFetcher(served)
        let decision = await IntermediateFetchingEvaluator(SecurityPolicy.default, fetcher: fetcher).evaluate(trust, forHost: lab.host)
        #expect(decision.isTrusted, "\(decision)")
        #expect(fetcher.asked == [lowerURL, upperURL])

        let bounded = MemoryIssuerFetcher(served)
        let refused = await IntermediateFetchingEvaluator(SecurityPolicy.default, fetcher: bounded, maximumFetches: 1).evaluate(trust, forHost: lab.host)
        #expect(!refused.isTrusted)
        #expect(bounded.asked == [lowerURL])
        #expect(refused.lastEvaluation?.failures.first?.code == .missingIssuer)
    }

    @Test("nothing to fetch, a failed fetch, garbage, or a certificate that is not the issuer: still rejected, saying why; a loop of URLs ends")
    func failures() async throws {
        let url = "http://ca.example.test/issuing.cer"
        let withoutURL = await IntermediateFetchingEvaluator(SecurityPolicy.default, fetcher: MemoryIssuerFetcher([:]))
            .evaluate(fixture.trust(chain: [lab.leaf]), forHost: lab.host)
        #expect(!withoutURL.isTrusted)
        #expect(withoutURL.reason.contains("names a caIssuers URL"), "\(withoutURL.reason)")

        let leaf = try leaf(caIssuers: [url])
        let trust = fixture.trust(chain: [leaf])
        let cases: [([String: [UInt8]], String)] = [
            ([:], "answered 404"),
            ([url: Array("<html>not found</html>".utf8)], "not a valid X.509 certificate"),
            // Another CA's certificate: it is added, but no path validates through it.
            ([url: lab.proxyRoot.derBytes], "neither presented nor a trusted anchor"),
        ]
        for (served, expected) in cases {
            let decision = await IntermediateFetchingEvaluator(SecurityPolicy.default, fetcher: MemoryIssuerFetcher(served)).evaluate(trust, forHost: lab.host)
            #expect(!decision.isTrusted)
            #expect(decision.reason.contains(expected), "\(decision.reason)")
        }

        // An intermediate whose caIssuers names itself: asked once, then the search ends.
        let loopURL = "http://ca.example.test/loop.cer"
        let looping = try lab.pki.issue(CertificateProfile.certificateAuthority("Looping CA").pointingTo(caIssuers: [loopURL]), by: lab.rogueRoot)
        let loopLeaf = try lab.pki.issue(CertificateProfile.server(lab.host).pointingTo(caIssuers: [loopURL]), by: looping)
        let fetcher = MemoryIssuerFetcher([loopURL: looping.derBytes])
        let loop = await IntermediateFetchingEvaluator(SecurityPolicy.default, fetcher: fetcher).evaluate(fixture.trust(chain: [loopLeaf]), forHost: lab.host)
        #expect(!loop.isTrusted)
        #expect(fetcher.asked == [loopURL])
    }

    @Test("a trusted decision and a rejection for another reason are the base's own: nothing is fetched")
    func onlyForMissingIssuers() async throws {
        let fetcher = MemoryIssuerFetcher([:])
        let evaluator = IntermediateFetchingEvaluator(SecurityPolicy.default, fetcher: fetcher)
        #expect(await evaluator.evaluate(fixture.trust(.legitimate), forHost: lab.host).isTrusted)
        #expect(await !evaluator.evaluate(fixture.trust(.expired), forHost: lab.host).isTrusted)
        #expect(await !evaluator.evaluate(fixture.trust(.wrongHost), forHost: lab.host).isTrusted)
        #expect(fetcher.asked.isEmpty)
    }
}
