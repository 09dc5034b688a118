import Foundation
import PKIBuilder
import Testing
import TransportSecurity

/// Chains that public CAs issued to real services (`Tests/Fixtures/real-world-chains`, whose
/// README gives each file's source and validity), evaluated at a fixed time inside their
/// validity with the names they really served: the engine's answers on inputs it did not make.
@Suite("Real-world chains")
struct RealWorldChainTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/real-world-chains")

    static func certificates(_ file: String) throws -> [DERCertificate] {
        try CertificateLoader.certificates(atPath: folder.appendingPathComponent(file).path)
    }

    static func time(_ text: String) -> Date { Date(iso8601: text)! }

    /// `chain` evaluated for `host` at `time`, with `root` as the system store.
    func evaluate(
        _ chain: [DERCertificate], host: String?, root: String, at time: String, options: TrustEvaluationOptions = .default,
        evaluator: (any ServerTrustEvaluating)? = nil
    ) async throws -> TrustDecision {
        let trust = ServerTrust(
            chain: chain, policy: .ssl(host), systemStore: TrustStore(try Self.certificates(root), origin: root),
            evaluationTime: Self.time(time), options: options
        )
        return await (evaluator ?? SecurityPolicy.default).evaluate(trust, forHost: host ?? "")
    }

    @Test(
        "CA-issued chains are trusted for the names they serve, whose roots are self-signed with SHA-1 (an anchor's own signature is not relied on)",
        arguments: [
            ("cryptography.io-2014-rapidssl.pem", "www.cryptography.io", "geotrust-global-ca.pem", "2016-06-01T00:00:00Z"),
            ("cryptography.io-2014-rapidssl.pem", "cryptography.io", "geotrust-global-ca.pem", "2016-06-01T00:00:00Z"),
            ("cryptography.io-2018-letsencrypt.pem letsencrypt-authority-x3.pem", "cryptography.io", "dst-root-ca-x3.pem", "2018-10-15T00:00:00Z"),
            ("scotthelme.co.uk-2017.pem letsencrypt-authority-x3.pem", "scotthelme.co.uk", "dst-root-ca-x3.pem", "2017-10-01T00:00:00Z"),
            ("scotthelme.co.uk-2017.pem letsencrypt-authority-x3.pem", "www.scotthelme.com", "dst-root-ca-x3.pem", "2017-10-01T00:00:00Z"),
            ("scotthelme.co.uk-2017.pem letsencrypt-authority-x3.pem", "xn--lv8haa.scotthelme.co.uk", "dst-root-ca-x3.pem", "2017-10-01T00:00:00Z"),
        ]
    )
    func trustedChains(_ files: String, _ host: String, _ root: String, _ time: String) async throws {
        let chain = try files.split(separator: " ").flatMap { try Self.certificates(String($0)) }
        let decision = try await evaluate(chain, host: host, root: root, at: time)
        #expect(decision.isTrusted, "\(host): \(decision.reason)")
        #expect(decision.lastEvaluation?.path.last == (try Self.certificates(root)).first, "the path ends at the real root")
        // The names they do not serve, names that are almost right, and a time past the leaf.
        for wrong in ["evil.com", "\(host).evil.com", "x\(host)", "a.\(host)"] {
            let refused = try await evaluate(chain, host: wrong, root: root, at: time)
            #expect(refused.lastEvaluation?.failures.map(\.code) == [.hostnameMismatch], "\(wrong)")
        }
        let later = try await evaluate(chain, host: host, root: root, at: "2023-01-01T00:00:00Z")
        #expect(later.lastEvaluation?.failures.contains { $0.code == .expired } == true)
    }

    @Test("a real chain without its intermediate is refused, naming the missing issuer")
    func missingIntermediate() async throws {
        let decision = try await evaluate(try Self.certificates("cryptography.io-2018-letsencrypt.pem"), host: "cryptography.io", root: "dst-root-ca-x3.pem", at: "2018-10-15T00:00:00Z")
        #expect(decision.lastEvaluation?.failures.map(\.code) == [.missingIssuer])
        #expect(decision.reason.contains("Let's Encrypt Authority X3"))
    }

    @Test(
        "real chains signed with SHA-1 are refused, leaf and intermediate named; the insecure legacy switch accepts them",
        arguments: [
            ("www.globalsign.com-2012-sha1.pem", "www.globalsign.com", "globalsign-root-r2.pem", "2013-01-01T00:00:00Z"),
            ("secure.comodo.com-2011-sha1.pem", "secure.comodo.com", "comodo-certification-authority.pem", "2012-06-01T00:00:00Z"),
        ]
    )
    func sha1Chains(_ file: String, _ host: String, _ root: String, _ time: String) async throws {
        let chain = try Self.certificates(file)
        let refused = try await evaluate(chain, host: host, root: root, at: time)
        #expect(!refused.isTrusted)
        let failures = try #require(refused.lastEvaluation?.failures)
        #expect(failures.map(\.code) == [.weakSignature, .weakSignature], "\(failures)")
        #expect(failures.map(\.certificate) == chain.map(\.subjectSummary))
        #expect(refused.reason.contains("is signed with SHA-1 (sha1WithRSAEncryption), which is refused"))
        // Pinning does not get past it either.
        let pinned = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [chain[0]])
        #expect(!(try await evaluate(chain, host: host, root: root, at: time, evaluator: pinned).isTrusted))
        let legacy = try await evaluate(chain, host: host, root: root, at: time, options: TrustEvaluationOptions(insecurelyAllowsSHA1Signatures: true))
        #expect(legacy.isTrusted, "\(legacy.reason)")
    }

    @Test("a certificate signed with MD5 (CAcert's root) is refused when read, and the error names MD5")
    func md5() throws {
        #expect {
            try Self.certificates("cacert-root-md5.pem")
        } throws: { error in
            String(describing: error).contains("it is signed with md5WithRSAEncryption (1.2.840.113549.1.1.4), which is refused: MD5 and SHA-1 signatures can be forged")
        }
    }

    @Test("a real wildcard certificate as its own anchor: one label under each wildcard, and the bare names it lists")
    func realWildcard() async throws {
        let leaf = try Self.certificates("langui.sh-2014-wildcard.pem")
        func decide(_ host: String) async -> TrustEvaluation {
            await ServerTrust(chain: leaf, policy: .ssl(host), anchors: leaf, systemStore: .empty, evaluationTime: Self.time("2016-01-01T00:00:00Z")).evaluate()
        }
        for host in ["www.langui.sh", "langui.sh", "saseliminator.com", "www.saseliminator.com", "WWW.LANGUI.SH."] {
            #expect(await decide(host).isTrusted, "\(host)")
        }
        for host in ["a.b.langui.sh", "langui.sh.evil.com", "xlangui.sh", "sh"] {
            #expect(await decide(host).failures.map(\.code) == [.hostnameMismatch], "\(host)")
        }
    }

    @Test("a real certificate whose dNSName entries hold Unicode (not IA5) is refused as malformed, without a crash")
    func malformedRealSubjectAltName() async throws {
        let leaf = try Self.certificates("biztositas.hu-2016-wildcard.pem")
        let evaluation = await ServerTrust(chain: leaf, policy: .ssl("partner.biztositas.hu"), anchors: leaf, systemStore: .empty, evaluationTime: Self.time("2017-06-01T00:00:00Z")).evaluate()
        #expect(evaluation.failures.map(\.code) == [.malformedCertificate])
        #expect(evaluation.summary.contains("malformed subjectAltName"))
    }

    @Test("an attacker's own leaf followed by a real chain: no pin on the real certificates matches, while the real chain itself still passes")
    func appendedRealChain() async throws {
        let real = try Self.certificates("cryptography.io-2014-rapidssl.pem")
        let pki = PKI(now: Self.time("2016-06-01T00:00:00Z"))
        let attacker = try pki.issueSelfSigned(.server("www.cryptography.io")).der
        let root = try Self.certificates("geotrust-global-ca.pem")
        for pinned in real + root {
            for validatesDomain in [true, false] {
                let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [pinned], allowInvalidCertificates: true, validatesDomainName: validatesDomain)
                let forged = try await evaluate([attacker] + real + root, host: "www.cryptography.io", root: "geotrust-global-ca.pem", at: "2016-06-01T00:00:00Z", evaluator: policy)
                #expect(!forged.isTrusted, "\(pinned.subjectSummary) pinned")
                let genuine = try await evaluate(real + root, host: "www.cryptography.io", root: "dst-root-ca-x3.pem", at: "2016-06-01T00:00:00Z", evaluator: policy)
                #expect(genuine.isTrusted, "\(pinned.subjectSummary): the real chain, linked by its real signatures, without a trusted root: \(genuine.reason)")
            }
        }
    }
}
