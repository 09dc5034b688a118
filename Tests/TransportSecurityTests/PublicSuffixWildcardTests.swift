import Foundation
import PKIBuilder
import TestServers
import Testing
import TransportSecurity

/// Certificate wildcards against the public suffix list's two sections: refused over an
/// ICANN-section suffix (`*.com`, `*.co.uk`), accepted over a private-section one
/// (`*.s3.amazonaws.com`, `*.github.io`), as Chrome and Firefox decide; with the list compiled
/// into the library, so the answer is the same on every machine.
@Suite("Wildcards and the public suffix list's sections")
struct PublicSuffixWildcardTests {
    let pki = LabFixture.shared.lab.pki

    /// Evaluates a leaf for `pattern` under a fresh root, for `host`.
    func evaluate(_ pattern: String, host: String, options: TrustEvaluationOptions? = nil) async throws -> TrustEvaluation {
        let root = try pki.issueRoot(.certificateAuthority("Wildcard Root"))
        let leaf = try pki.issue(.server(pattern, dnsNames: [pattern]), by: root)
        var trust = ServerTrust(chain: [leaf.der], policy: .ssl(host), anchors: [root.der], systemStore: .empty, evaluationTime: pki.now)
        if let options { trust.options = options }
        return await trust.evaluate()
    }

    /// The wildcard certificates these services really serve, over suffixes of the list's
    /// private section.
    static let privateSection: [(pattern: String, host: String)] = [
        ("*.s3.amazonaws.com", "bucket.s3.amazonaws.com"),
        ("*.github.io", "octocat.github.io"),
        ("*.azurewebsites.net", "myapp.azurewebsites.net"),
        ("*.cloudfront.net", "d111111abcdef8.cloudfront.net"),
        ("*.appspot.com", "myproject.appspot.com"),
        ("*.herokuapp.com", "myapp.herokuapp.com"),
        ("*.httpbin.org", "eu.httpbin.org"),
    ]

    @Test("a wildcard over a private-section suffix matches one label below it, with the default options (the compiled-in list)", arguments: privateSection)
    func privateSectionWildcards(_ entry: (pattern: String, host: String)) async throws {
        let evaluation = try await evaluate(entry.pattern, host: entry.host)
        #expect(evaluation.isTrusted, "\(entry.pattern) for \(entry.host): \(evaluation.summary)")
        // Still one whole label: neither the suffix itself nor two labels below it.
        let suffix = String(entry.pattern.dropFirst(2))
        #expect(try await evaluate(entry.pattern, host: suffix).failures.map(\.code) == [.hostnameMismatch])
        #expect(try await evaluate(entry.pattern, host: "a.b." + suffix).failures.map(\.code) == [.hostnameMismatch])
        #expect(PublicSuffixList.bundled.section(of: suffix) == .private)
        // Cookies and tsec lint still treat it as public.
        #expect(PublicSuffixList.bundled.isPublicSuffix(suffix))
    }

    @Test(
        "a wildcard over an ICANN-section suffix matches nothing, and the mismatch names the suffix",
        arguments: [
            ("*.com", "example.com", "com"), ("*.co.uk", "example.co.uk", "co.uk"), ("*.org", "httpbin.org", "org"),
            // `*.ck` makes every name under ck a suffix; `!www.ck` takes www.ck back out.
            ("*.foo.ck", "a.foo.ck", "foo.ck"), ("*.nakahara.kawasaki.jp", "a.nakahara.kawasaki.jp", "nakahara.kawasaki.jp"),
        ]
    )
    func icannSectionWildcards(_ pattern: String, _ host: String, _ suffix: String) async throws {
        let evaluation = try await evaluate(pattern, host: host)
        #expect(evaluation.failures.map(\.code) == [.hostnameMismatch], "\(pattern)")
        #expect(evaluation.summary.contains("a wildcard over the public suffix \(suffix), which no certificate may cover"), "\(evaluation.summary)")
        #expect(PublicSuffixList.bundled.section(of: suffix) == .icann)
    }

    @Test("names the list excepts, and names under no suffix rule, take a wildcard")
    func exceptionsAndOrdinaryNames() async throws {
        #expect(PublicSuffixList.bundled.section(of: "www.ck") == nil, "!www.ck")
        #expect(try await evaluate("*.www.ck", host: "a.www.ck").isTrusted)
        #expect(try await evaluate("*.example.co.uk", host: "api.example.co.uk").isTrusted)
        #expect(try await evaluate("*.example.com", host: "API.Example.COM.").isTrusted)
        // Not a whole left-most label: matches nothing, whatever the list says.
        let partial = try await evaluate("**.example.com", host: "a.b.example.com")
        #expect(partial.summary.contains("a wildcard that matches nothing: only a whole left-most * label is one"), "\(partial.summary)")
    }

    @Test("the compiled-in snapshot is the default everywhere: its version, its sections, and the same answer as passing it explicitly")
    func snapshot() async throws {
        let list = PublicSuffixList.bundled
        #expect(PublicSuffixList.snapshotVersion == "2023-02-09")
        #expect(list.version == PublicSuffixList.snapshotVersion)
        #expect(list.description.hasPrefix("public suffix list 2023-02-09: "))
        #expect(TrustEvaluationOptions().publicSuffixes == list)
        #expect(SubjectAltNameHostPolicy(host: ServerHost("a.github.io")).publicSuffixes == list)
        #expect(list.section(of: "com") == .icann)
        #expect(list.section(of: "co.uk") == .icann)
        #expect(list.section(of: "github.io") == .private)
        #expect(list.section(of: "example.com") == nil)
        #expect(list.section(of: "unlisted-top-level-domain") == .icann, "a single label is a top-level domain")
        let explicit = try await evaluate("*.github.io", host: "octocat.github.io", options: TrustEvaluationOptions(publicSuffixes: .bundled))
        #expect(explicit.isTrusted)
    }

    @Test("a caller's newer list decides instead: its ICANN rules refuse, its private rules allow, and unmarked rules count as ICANN")
    func callersList() async throws {
        let text = """
            // ===BEGIN ICANN DOMAINS===
            test
            registry.test
            // ===END ICANN DOMAINS===
            // ===BEGIN PRIVATE DOMAINS===
            hosting.test
            *.cdn.test
            // ===END PRIVATE DOMAINS===
            unmarked.test
            """
        let list = PublicSuffixList(text: text, version: "caller's")
        #expect(list.section(of: "registry.test") == .icann)
        #expect(list.section(of: "hosting.test") == .private)
        #expect(list.section(of: "edge.cdn.test") == .private)
        #expect(list.section(of: "unmarked.test") == .icann)
        let options = TrustEvaluationOptions(publicSuffixes: list)
        #expect(try await evaluate("*.registry.test", host: "a.registry.test", options: options).failures.map(\.code) == [.hostnameMismatch])
        #expect(try await evaluate("*.unmarked.test", host: "a.unmarked.test", options: options).failures.map(\.code) == [.hostnameMismatch])
        #expect(try await evaluate("*.hosting.test", host: "a.hosting.test", options: options).isTrusted)
        #expect(try await evaluate("*.edge.cdn.test", host: "a.edge.cdn.test", options: options).isTrusted)
        // The same certificate under the compiled-in list, where none of these is a suffix.
        #expect(try await evaluate("*.registry.test", host: "a.registry.test").isTrusted)
        // A different list is a different evaluation: decisions are not shared between them.
        let trust = ServerTrust(chain: [], policy: .ssl("a.registry.test"), systemStore: .empty)
        var other = trust
        other.options = options
        let evaluator = SecurityPolicy.default
        #expect(DecisionCacheKey(trust: trust, host: "a.registry.test", evaluator: evaluator) != DecisionCacheKey(trust: other, host: "a.registry.test", evaluator: evaluator))
    }

    @Test("each section is read on its own: no private rule, exception or duplicate makes an ICANN suffix anything else")
    func sectionsDoNotMix() async throws {
        let list = PublicSuffixList(text: """
            // ===BEGIN ICANN DOMAINS===
            *.b
            both.test
            // ===BEGIN PRIVATE DOMAINS===
            a.b
            both.test
            !c.b
            hosted.test
            // ===END PRIVATE DOMAINS===
            """)
        #expect(list.section(of: "a.b") == .icann, "an ICANN wildcard covers it, whatever the private section says")
        #expect(list.section(of: "c.b") == .icann, "a private exception does not cancel an ICANN rule")
        #expect(list.section(of: "both.test") == .icann)
        #expect(list.section(of: "hosted.test") == .private)
        let options = TrustEvaluationOptions(publicSuffixes: list)
        for (pattern, host) in [("*.a.b", "x.a.b"), ("*.c.b", "x.c.b"), ("*.both.test", "x.both.test")] {
            #expect(try await evaluate(pattern, host: host, options: options).failures.map(\.code) == [.hostnameMismatch], "\(pattern)")
        }
        #expect(try await evaluate("*.hosted.test", host: "x.hosted.test", options: options).isTrusted)
    }

    @Test("a list read from a file, and files that are not one: a clear error naming the file")
    func listFiles() throws {
        let directory = try TemporaryDirectory()
        let good = directory.path + "/public_suffix_list.dat"
        try Data("// ===BEGIN ICANN DOMAINS===\ncom\n// ===BEGIN PRIVATE DOMAINS===\ngithub.io\n".utf8).write(to: URL(fileURLWithPath: good))
        let list = try PublicSuffixList(contentsOf: good)
        #expect(list.version == good)
        #expect(list.section(of: "github.io") == .private)
        let empty = directory.path + "/empty.dat"
        try Data("// only a comment\n".utf8).write(to: URL(fileURLWithPath: empty))
        #expect {
            try PublicSuffixList(contentsOf: empty)
        } throws: { error in
            String(describing: error).contains("\(empty)") && String(describing: error).contains("holds no public suffix rule")
        }
        #expect {
            try PublicSuffixList(contentsOf: directory.path + "/missing.dat")
        } throws: { error in
            String(describing: error).contains("the public suffix list cannot be read")
        }
    }
}
