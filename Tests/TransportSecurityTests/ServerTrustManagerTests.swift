import PKIBuilder
import Testing
import TransportSecurity

@Suite("Host patterns and the trust manager")
struct ServerTrustManagerTests {
    let fixture = LabFixture.shared

    @Test(
        "patterns match as documented",
        arguments: [
            ("api.example.com", "api.example.com", true),
            ("api.example.com", "API.Example.com.", true),
            ("api.example.com", "www.api.example.com", false),
            ("*.example.com", "api.example.com", true),
            ("*.example.com", "a.b.example.com", false),
            ("*.example.com", "example.com", false),
            ("**.example.com", "a.b.example.com", true),
            ("**.example.com", "api.example.com", true),
            ("**.example.com", "example.com", false),
            ("**.example.com", "badexample.com", false),
            ("*.example.com", "a.com", false),
            ("**.example.com", "", false),
            ("*.2.3.4", "1.2.3.4", false),
            ("**.0.2.1", "192.0.2.1", false),
            ("192.0.2.1", "192.0.2.1", true),
            ("API.Example.COM", "api.example.com", true),
            // An exact address pattern covers the address however either is written.
            ("0:0:0:0:0:0:0:1", "::1", true),
            ("[::1]", "0::1", true),
            ("127.1", "127.0.0.1", true),
            ("127.0.0.1", "2130706433", true),
            ("127.1", "127.0.0.2", false),
        ]
    )
    func matching(pattern: String, host: String, matches: Bool) throws {
        #expect(try HostPattern(pattern).matches(host) == matches)
    }

    @Test(
        "hosts are normalized once and for all: case, one trailing dot, white space at the ends, brackets only around IPv6",
        arguments: [
            ("API.Example.COM.", ServerHost.dnsName("api.example.com")),
            ("  api.example.com\t", .dnsName("api.example.com")),
            ("api.example.com ", .dnsName("api.example.com")),
            ("\tapi.example.com", .dnsName("api.example.com")),
            ("\u{00A0}api.example.com\u{2003}", .dnsName("api.example.com")),
            ("api.example.com\n", .dnsName("api.example.com\n")),
            // Foundation's CharacterSet.whitespaces holds U+200B, a format character, not a space.
            ("api.example.com\u{200B}", .dnsName("api.example.com\u{200B}")),
            ("\u{200B}", .dnsName("\u{200B}")),
            // DNS ignores case in ASCII only: the KELVIN SIGN is not a K.
            ("\u{212A}EY.Example.COM", .dnsName("\u{212A}ey.example.com")),
            ("[::1]", .ipAddress("::1")),
            ("0:0:0:0:0:0:0:1", .ipAddress("::1")),
            (" 192.0.2.1 ", .ipAddress("192.0.2.1")),
            ("192.0.2.1.", .ipAddress("192.0.2.1")),
            ("::.", .ipAddress("::")),
            ("[::].", .ipAddress("::")),
            ("[api.example.com]", .dnsName("[api.example.com]")),
            ("[ x ]", .dnsName("[ x ]")),
            // What getaddrinfo reads as an IPv4 address (inet_aton's forms) is that address: a
            // name with no dot would otherwise pass for a local one.
            ("134744072", .ipAddress("8.8.8.8")),
            ("134744072.", .ipAddress("8.8.8.8")),
            ("0x08080808", .ipAddress("8.8.8.8")),
            ("0X8.0x80808", .ipAddress("8.8.8.8")),
            ("8.526344", .ipAddress("8.8.8.8")),
            ("127.1", .ipAddress("127.0.0.1")),
            ("010.0.0.1", .ipAddress("8.0.0.1")),
            ("1.2.3.04", .ipAddress("1.2.3.4")),
            ("0", .ipAddress("0.0.0.0")),
            // Not addresses to a resolver either: looked up in DNS.
            ("1.2.3.4.5", .dnsName("1.2.3.4.5")),
            ("08.1.1.1", .dnsName("08.1.1.1")),
            ("4294967296", .dnsName("4294967296")),
            ("0x", .dnsName("0x")),
            ("cafe", .dnsName("cafe")),
            ("1e100", .dnsName("1e100")),
            ("[127.1]", .dnsName("[127.1]")),
        ]
    )
    func hostNormalization(text: String, expected: ServerHost) {
        let host = ServerHost(text)
        #expect(host == expected)
        #expect(ServerHost(host.name) == host, "normalizing again changes nothing")
    }

    @Test(
        "a host a connection can be made to: addresses (IPv6 with a zone too) and DNS names of letters, digits, '-' and '_'; anything else says why",
        arguments: [
            ("api.example.com", nil), ("under_score.example.com", nil), ("127.0.0.1", nil), ("::1", nil), ("fe80::1%eth0", nil), ("localhost", nil),
            ("api.example.com\u{0}.other.example", "has the character U+0000, which no host name has"),
            ("api.example.com\n.other.example", "has the character U+000A, which no host name has"),
            ("exa mple.com", "has the character ' ', which no host name has"),
            ("example.com/.evil", "has the character '/', which no host name has"),
            ("a@b.com", "has the character '@', which no host name has"),
            ("a..b", "has an empty label (a leading dot or '..')"),
            ("fe80::1%", "has the character ':', which no host name has"),
            ("fe80::1\u{0}x%eth0", "has the character ':', which no host name has"),
            ("10.0.0.1\u{0}.example.com", "has the character U+0000, which no host name has"),
            ("bücher.example", "is not ASCII: write the name in its ASCII form (IDNA, xn--…), as hosts are looked up: xn--bcher-kva.example"),
            (String(repeating: "a", count: 64) + ".com", "has a label longer than 63 characters"),
        ] as [(String, String?)]
    )
    func nameProblems(host: String, problem: String?) {
        #expect(ServerHost(host).nameProblem == problem)
    }

    @Test(
        "an exact pattern matches the host it names, also where Foundation's white space is not Unicode's (U+200B, a fuzzing finding)",
        arguments: ["\u{200B}", "api.example.com\u{200B}", "\u{200B}api.example.com", "api.example.com"]
    )
    func exactPatternMatchesItself(text: String) throws {
        let pattern = try HostPattern(text)
        #expect(pattern.matches(pattern.suffix))
        #expect(pattern.matches(text))
        #expect(!pattern.matches("api.example.org"))
    }

    @Test("patterns and hosts ignore case in ASCII only: the KELVIN SIGN pattern does not cover key.example.com")
    func caseFoldingIsASCII() throws {
        #expect(try !HostPattern("\u{212A}ey.example.com").matches("key.example.com"))
        #expect(try !HostPattern("*.\u{212A}.example").matches("a.k.example"))
        #expect(try HostPattern("KEY.Example.COM").matches("key.example.com"))
    }

    @Test("hosts and patterns compare bytes: canonically equivalent spellings, which String's == takes for one, are different hosts")
    func canonicalEquivalentsDiffer() throws {
        let composed = "\u{E5}.example"  // å as one scalar
        let decomposed = "a\u{30A}.example"  // a + COMBINING RING ABOVE
        #expect(composed == decomposed, "the trap: Swift's String equality")
        #expect(ServerHost(composed) != ServerHost(decomposed))
        #expect(Set([ServerHost(composed), ServerHost(decomposed)]).count == 2)
        #expect(try HostPattern(composed).matches(composed))
        #expect(try !HostPattern(composed).matches(decomposed))
        #expect(try !HostPattern("*.\u{3A9}.example").matches("a.\u{2126}.example"), "OHM SIGN is not GREEK CAPITAL OMEGA")
        #expect(try HostPattern(composed) != HostPattern(decomposed))
        let manager = try ServerTrustManager(evaluators: [composed: DefaultTrustEvaluator()])
        #expect(manager.rule(forHost: composed) != nil)
        #expect(manager.rule(forHost: decomposed) == nil)
    }

    @Test("malformed patterns are refused", arguments: ["", "*", "a*.example.com", "api.*.com", "**.", "a..b", ".example.com", "*.example.com..", "*..com", " api.example.com", "*.example.com ", "api example.com", "api\texample.com"])
    func malformedPattern(pattern: String) {
        #expect(throws: HostPatternError(pattern: pattern)) { try HostPattern(pattern) }
    }

    @Test("the most specific pattern wins")
    func specificity() throws {
        let manager = try ServerTrustManager(evaluators: [
            "**.example.com": DefaultTrustEvaluator(),
            "*.example.com": DefaultTrustEvaluator(validatesHost: false),
            "api.example.com": InsecureDisabledTrustEvaluator(),
            "**.eu.example.com": PublicKeysTrustEvaluator(pins: []),
        ])
        #expect(manager.rule(forHost: "api.example.com")?.pattern.description == "api.example.com")
        #expect(manager.rule(forHost: "www.example.com")?.pattern.description == "*.example.com")
        #expect(manager.rule(forHost: "a.www.example.com")?.pattern.description == "**.example.com")
        #expect(manager.rule(forHost: "a.eu.example.com")?.pattern.description == "**.eu.example.com")
        #expect(manager.rule(forHost: "example.org") == nil)
    }

    @Test("unmatched hosts are rejected when every host must be evaluated, else use the fallback")
    func unmatchedHosts() async throws {
        let strict = try ServerTrustManager(evaluators: ["other.test": DefaultTrustEvaluator()])
        let rejected = await strict.evaluate(fixture.trust(.legitimate), forHost: fixture.host)
        #expect(rejected.isTrusted == false)
        #expect(rejected.reason.contains("no evaluator is configured for \(fixture.host)"))
        let lenient = try ServerTrustManager(allHostsMustBeEvaluated: false, evaluators: [:])
        #expect(await lenient.evaluate(fixture.trust(.legitimate), forHost: fixture.host).isTrusted)
    }

    @Test("the matching evaluator decides and the decision names the pattern")
    func decides() async throws {
        let lab = fixture.lab
        let manager = try ServerTrustManager(evaluators: ["**.example.test": PublicKeysTrustEvaluator(certificates: [lab.root.der])])
        let trusted = await manager.evaluate(fixture.trust(.legitimate), forHost: fixture.host)
        #expect(trusted.isTrusted)
        #expect(trusted.decidedBy.hasPrefix("**.example.test → PublicKeysTrustEvaluator"))
        #expect(trusted.decider == .hostPattern("**.example.test", .evaluator("PublicKeysTrustEvaluator")))
        #expect(trusted.decider.final == .evaluator("PublicKeysTrustEvaluator"))
        #expect(await manager.evaluate(fixture.trust(.interceptingProxy), forHost: fixture.host).isTrusted == false)
    }
}
