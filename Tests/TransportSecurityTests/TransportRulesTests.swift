import Foundation
import Testing
import TransportSecurity

/// Loads a configuration from a JSON-like dictionary through the JSON reader.
private func configuration(_ dictionary: [String: Any]) throws -> (TransportSecurityConfiguration, [ConfigurationIssue]) {
    try TransportSecurityConfiguration.load(from: JSONSerialization.data(withJSONObject: dictionary), source: "test.json")
}

private let pinA = "sha256/" + Data(repeating: 0xA1, count: 32).base64EncodedString()
private let pinB = "sha256/" + Data(repeating: 0xB2, count: 32).base64EncodedString()

@Suite("Transport rules: resolution (the exact host, the longest matching domain with subdomains, the global keys)")
struct TransportRuleResolutionTests {
    let rules: TransportSecurityConfiguration

    init() throws {
        rules = try configuration([
            "NSAllowsArbitraryLoads": true,
            "NSExceptionDomains": [
                "example.com": ["NSIncludesSubdomains": true, "NSExceptionMinimumTLSVersion": "TLSv1.1"],
                "api.example.com": [String: Any](),
                "sub.example.com": ["NSIncludesSubdomains": false, "NSExceptionAllowsInsecureHTTPLoads": true],
                "legacy.example.net": ["NSExceptionAllowsInsecureHTTPLoads": true, "NSExceptionRequiresForwardSecrecy": false],
                "example.org": ["NSIncludesSubdomains": false],
                "198.51.100.0/24": ["NSExceptionAllowsInsecureHTTPLoads": true],
                "198.51.100.0/27": [String: Any](),
                "203.0.113.7": ["NSExceptionAllowsInsecureHTTPLoads": true],
                "2001:db8:12::/48": ["NSExceptionAllowsInsecureHTTPLoads": true],
                // An IPv4-mapped range is the IPv4 range it maps (192.0.2.0/24).
                "::ffff:192.0.2.0/120": ["NSExceptionAllowsInsecureHTTPLoads": true],
            ],
        ]).0
    }

    /// host → (origin, cleartext allowed, ATS checks on, minimum TLS, forward secrecy). Rules
    /// never lower the TLS floor (1.2) unless an exception names a lower version.
    static let table: [(String, String, Bool, Bool, TLSProtocolVersion, Bool)] = [
        ("api.example.com", "exception api.example.com", false, true, .tls12, true),
        ("a.b.example.com", "exception example.com, includes subdomains", false, true, .tls11, true),
        ("EXAMPLE.COM.", "exception example.com", false, true, .tls11, true),
        // An ancestor whose entry does not include subdomains is skipped; the walk goes on up.
        ("x.sub.example.com", "exception example.com, includes subdomains", false, true, .tls11, true),
        ("sub.example.com", "exception sub.example.com", true, true, .tls12, true),
        ("legacy.example.net", "exception legacy.example.net", true, true, .tls12, false),
        // An entry, even without keys, overrides NSAllowsArbitraryLoads for its domain only.
        ("example.org", "exception example.org", false, true, .tls12, true),
        ("www.example.org", "global keys", true, false, .tls12, false),
        // Longest prefix: /27 (strict) inside /24 (cleartext allowed).
        ("198.51.100.0", "exception 198.51.100.0/27", false, true, .tls12, true),
        ("198.51.100.100", "exception 198.51.100.0/24", true, true, .tls12, true),
        ("203.0.113.7", "exception 203.0.113.7", true, true, .tls12, true),
        ("2001:db8:12::34", "exception 2001:db8:12::/48", true, true, .tls12, true),
        // A public IP literal needs an entry: arbitrary loads do not cover it.
        ("203.0.113.8", "global keys", false, true, .tls12, true),
        // Local names and addresses.
        ("localhost", "local network", true, false, .tls12, false),
        ("printer", "local network", true, false, .tls12, false),
        ("nas.local", "local network", true, false, .tls12, false),
        ("127.0.0.1", "local network", true, false, .tls12, false),
        ("192.168.1.10", "local network", true, false, .tls12, false),
        ("[::1]", "local network", true, false, .tls12, false),
        // An IPv4-mapped IPv6 literal is its IPv4 address, for exceptions, ranges and locality.
        ("[::ffff:203.0.113.7]", "exception 203.0.113.7", true, true, .tls12, true),
        ("[::ffff:198.51.100.0]", "exception 198.51.100.0/27", false, true, .tls12, true),
        ("[::FFFF:c633:6464]", "exception 198.51.100.0/24", true, true, .tls12, true),
        ("[::ffff:203.0.113.8]", "global keys", false, true, .tls12, true),
        ("[::ffff:127.0.0.1]", "local network", true, false, .tls12, false),
        ("[::ffff:10.1.2.3]", "local network", true, false, .tls12, false),
        ("192.0.2.9", "exception 192.0.2.0/24", true, true, .tls12, true),
        ("[::ffff:192.0.2.9]", "exception 192.0.2.0/24", true, true, .tls12, true),
    ]

    @Test("every host of the table resolves to the expected rule", arguments: table)
    func resolution(_ row: (String, String, Bool, Bool, TLSProtocolVersion, Bool)) {
        let rule = rules.rule(forHost: row.0)
        #expect(rule.originDescription == row.1, "\(row.0)")
        #expect(rule.allowsCleartext == row.2, "\(row.0)")
        #expect(rule.enforcesATS == row.3, "\(row.0)")
        #expect(rule.minimumTLSVersion == row.4, "\(row.0)")
        #expect(rule.requiresForwardSecrecy == row.5, "\(row.0)")
        #expect(rule.checksKeySizes == (row.3 && row.5), "\(row.0): key sizes go with forward secrecy")
        #expect(rule.requiresDefaultTrust == (row.3 && !row.2), "\(row.0): default trust is required where ATS is on and no exception allows insecure loads")
    }

    @Test("the rule explains itself in words")
    func description() {
        #expect(rules.rule(forHost: "a.b.example.com").description
            == "a.b.example.com (from exception example.com, includes subdomains): HTTPS only, TLS ≥ 1.1, default trust required, forward secrecy required, keys RSA ≥ 2048 / EC ≥ 256, signatures SHA-256 or better")
        #expect(rules.rule(forHost: "www.example.org").description
            == "www.example.org (from global keys): cleartext allowed, TLS ≥ 1.2, ATS checks off (default trust evaluation only)")
    }

    @Test("NSAllowsArbitraryLoads is ignored when a narrower global key is present, and the remedy says so")
    func arbitraryLoadsIgnored() throws {
        for narrower in ["NSAllowsLocalNetworking", "NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsInWebContent"] {
            let (rules, _) = try configuration(["NSAllowsArbitraryLoads": true, narrower: true])
            let rule = rules.rule(forHost: "www.example.com")
            #expect(!rule.allowsCleartext, "\(narrower)")
            #expect(rule.enforcesATS)
            #expect(rule.cleartextRemedy.contains("NSAllowsArbitraryLoads is ignored"))
        }
        let plain = try configuration([:]).0.rule(forHost: "www.example.com")
        #expect(!plain.allowsCleartext)
        #expect(plain.cleartextRemedy == "NSAppTransportSecurity.NSExceptionDomains.www.example.com.NSExceptionAllowsInsecureHTTPLoads, or NSAppTransportSecurity.NSAllowsArbitraryLoads")
    }

    @Test("NSAllowsLocalNetworking = false refuses cleartext to local hosts and turns ATS on for them")
    func localNetworkingOff() throws {
        let (rules, _) = try configuration(["NSAllowsLocalNetworking": false])
        for host in ["localhost", "printer", "10.0.0.2", "fe80::1"] {
            let rule = rules.rule(forHost: host)
            #expect(!rule.allowsCleartext, "\(host)")
            #expect(rule.enforcesATS)
            #expect(rule.cleartextRemedy.hasPrefix("NSAppTransportSecurity.NSAllowsLocalNetworking"))
        }
    }

    @Test("a name is local by its bytes: a dot followed by a combining mark (one Character, not \".\") still makes it qualified")
    func localByBytes() throws {
        let (rules, _) = try configuration([:])
        for host in ["evil.\u{301}com", "www.example.\u{301}com", "a.\u{301}local\u{301}"] {
            let rule = rules.rule(forHost: host)
            #expect(rule.originDescription == "global keys", "\(host)")
            #expect(!rule.allowsCleartext, "\(host)")
        }
        #expect(rules.rule(forHost: "a.b.LOCAL").allowsCleartext)
        #expect(rules.rule(forHost: "x.localhost").allowsCleartext)
        #expect(!rules.rule(forHost: "x.notlocal").allowsCleartext)
        // A URL without a host names nothing local.
        #expect(rules.rule(forHost: "").originDescription == "global keys")
        #expect(!rules.rule(for: URL(string: "http:///index.html")!).allowsCleartext)
    }

    @Test("a host that resolvers read as an IPv4 address is that address: 134744072 (8.8.8.8) is public, not an unqualified local name")
    func numericHostsAreAddresses() throws {
        let (rules, _) = try configuration([:])
        for host in ["134744072", "0x8080808", "8.526344"] {
            let rule = rules.rule(forHost: host)
            #expect(rule.host == "8.8.8.8", "\(host)")
            #expect(rule.originDescription == "global keys", "\(host)")
            #expect(!rule.allowsCleartext, "\(host): a public address needs an exception entry")
            #expect(rule.cleartextRemedy.contains("NSExceptionDomains.8.8.8.8."), "\(host)")
        }
        #expect(rules.rule(forHost: "2130706433").originDescription == "local network")
        let (excepted, _) = try configuration(["NSExceptionDomains": ["8.8.8.0/24": ["NSExceptionAllowsInsecureHTTPLoads": true]]])
        #expect(excepted.rule(forHost: "134744072").allowsCleartext)
        #expect(excepted.rule(forHost: "134744072").originDescription.hasPrefix("exception 8.8.8.0/24"))
    }

    @Test("pinned domains and pin sets: exact, subdomains, exclusion from the parent, expiry")
    func pins() throws {
        let (rules, issues) = try configuration([
            "NSPinnedDomains": [
                "example.com": ["NSIncludesSubdomains": true, "NSPinnedCAIdentities": [["SPKI-SHA256-BASE64": String(pinA.dropFirst(7))]]],
            ],
            "TSKPinnedDomains": [
                "example.com": ["TSKIncludeSubdomains": true, "TSKPublicKeyHashes": [pinA, pinB], "TSKEnforcePinning": false,
                                "TSKExpirationDate": "2031-01-01", "TSKReportUris": ["https://reports.example.com/pins"]],
                "open.example.com": ["TSKExcludeSubdomainFromParentPolicy": true, "TSKPublicKeyHashes": [pinA, pinB]],
            ],
        ])
        #expect(issues.isEmpty, "\(issues)")
        let deep = rules.rule(forHost: "a.b.example.com")
        #expect(deep.pinnedDomain?.caIdentities == [try SPKIPin(pinA)])
        #expect(deep.pinSet?.enforces == false)
        #expect(deep.pinSet?.reportURLs == [URL(string: "https://reports.example.com/pins")!])
        #expect(deep.pinSet?.isActive(at: Date(timeIntervalSince1970: 1_893_456_000)) == true)
        #expect(deep.pinSet?.isActive(at: Date(timeIntervalSince1970: 1_924_992_000)) == false)
        #expect(rules.rule(forHost: "open.example.com").pinSet == nil)
        #expect(rules.rule(forHost: "example.net").pinSet == nil)
        #expect(deep.description.contains("pin set example.com (2 pins, report-only)"))
    }

    @Test("NSPinnedDomains: an exact entry combines with its parent's that includes subdomains, kind by kind, so the parent's CA pins are not dropped")
    func combinedPinnedDomains() throws {
        func identities(_ pins: String...) -> [[String: String]] { pins.map { ["SPKI-SHA256-BASE64": String($0.dropFirst(7))] } }
        let (rules, issues) = try configuration([
            "NSPinnedDomains": [
                "example.com": ["NSIncludesSubdomains": true, "NSPinnedCAIdentities": identities(pinA)],
                "api.example.com": ["NSPinnedLeafIdentities": identities(pinB)],
                "ca.example.com": ["NSPinnedCAIdentities": identities(pinB)],
                "alone.example.org": ["NSPinnedLeafIdentities": identities(pinB)],
                "example.org": ["NSPinnedCAIdentities": identities(pinA)],
            ],
        ])
        #expect(issues.isEmpty, "\(issues)")
        // The exact entry's leaf pins and the parent's CA pins: both kinds must then match.
        let api = try #require(rules.rule(forHost: "api.example.com").pinnedDomain)
        #expect(api.leafIdentities == [try SPKIPin(pinB)])
        #expect(api.caIdentities == [try SPKIPin(pinA)])
        #expect(api.keysDescription == "api.example.com + example.com")
        #expect(rules.rule(forHost: "api.example.com").description.contains("NSPinnedDomains api.example.com + example.com: 1 CA pin(s), 1 leaf pin(s)"))
        // Pins of one kind are put together: either CA pin matches.
        let ca = try #require(rules.rule(forHost: "ca.example.com").pinnedDomain)
        #expect(ca.caIdentities == [try SPKIPin(pinB), try SPKIPin(pinA)])
        #expect(ca.leafIdentities == nil)
        // A parent that does not include subdomains adds nothing; no exact entry: the parent's alone.
        #expect(rules.rule(forHost: "alone.example.org").pinnedDomain?.caIdentities == nil)
        #expect(rules.rule(forHost: "alone.example.org").pinnedDomain?.combinedKeys == [])
        #expect(rules.rule(forHost: "other.example.com").pinnedDomain?.keysDescription == "example.com")
    }
}

@Suite("Transport rules: loading (Info.plist XML and binary, JSON) and malformed values")
struct TransportRuleLoadingTests {
    static var ats: [String: Any] { [
        "NSAllowsArbitraryLoads": false,
        "NSExceptionDomains": ["example.com": ["NSIncludesSubdomains": true, "NSExceptionMinimumTLSVersion": "TLSv1.3"]],
        "NSPinnedDomains": ["example.com": ["NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": String(pinB.dropFirst(7))]]]],
    ] }

    @Test("XML plist, binary plist and JSON give the same configuration")
    func formats() throws {
        let info: [String: Any] = ["CFBundleIdentifier": "com.example.app", "NSAppTransportSecurity": Self.ats]
        let xml = try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0)
        let binary = try PropertyListSerialization.data(fromPropertyList: info, format: .binary, options: 0)
        let json = try JSONSerialization.data(withJSONObject: Self.ats)
        let loaded = try [xml, binary, json].map { try TransportSecurityConfiguration.load(from: $0) }
        #expect(loaded.allSatisfy { $0.1.isEmpty }, "\(loaded.map(\.1))")
        #expect(loaded[0].0 == loaded[1].0)
        #expect(loaded[1].0 == loaded[2].0)
        #expect(loaded[0].0.rule(forHost: "www.example.com").minimumTLSVersion == .tls13)
        #expect(loaded[0].0.allowsArbitraryLoads == false)
    }

    @Test("each malformed value is reported with its key path and the stricter choice is kept")
    func malformed() throws {
        let (rules, issues) = try configuration([
            "NSAllowsArbitraryLoads": "YES",
            "NSAllowsSomethingElse": true,
            "NSExceptionDomains": [
                "tls.example.com": ["NSExceptionMinimumTLSVersion": "TLSV1.0", "NSExceptionAllowsInsecureHTTPLoads": "yes", "NSExceptionColour": "red"],
                "*.example.com": [String: Any](),
                "10.0.0.0/33": [String: Any](),
                "broken.example.com": "not a dictionary",
                "Mixed.Example.com": [String: Any](),
            ],
            "NSPinnedDomains": [
                "pinned.example.com": ["NSPinnedCAIdentities": [["SPKI-SHA256-BASE64": "not base64!"], ["wrong": "key"]]],
            ],
            "TSKPinnedDomains": [
                "single.example.com": ["TSKPublicKeyHashes": [pinA], "TSKExpirationDate": "next year"],
            ],
        ])
        func issue(_ path: String) -> ConfigurationIssue? { issues.first { $0.keyPath == path } }
        #expect(issue("NSAllowsArbitraryLoads")?.severity == .error)
        #expect(rules.allowsArbitraryLoads == nil)
        #expect(issue("NSAllowsSomethingElse")?.severity == .warning)
        #expect(issue("NSExceptionDomains.tls.example.com.NSExceptionMinimumTLSVersion")?.message.contains("TLSv1.2 applies") == true)
        #expect(rules.rule(forHost: "tls.example.com").minimumTLSVersion == .tls12)
        #expect(issue("NSExceptionDomains.tls.example.com.NSExceptionAllowsInsecureHTTPLoads")?.severity == .error)
        #expect(!rules.rule(forHost: "tls.example.com").allowsCleartext)
        #expect(issue("NSExceptionDomains.tls.example.com.NSExceptionColour")?.severity == .warning)
        #expect(issue("NSExceptionDomains.*.example.com")?.message.contains("has a wildcard: write the parent domain and include its subdomains") == true)
        #expect(issue("NSExceptionDomains.10.0.0.0/33")?.message.contains("CIDR") == true)
        #expect(issue("NSExceptionDomains.broken.example.com")?.message.contains("treated as an empty entry") == true)
        #expect(rules.rule(forHost: "broken.example.com").originDescription == "exception broken.example.com")
        #expect(issue("NSExceptionDomains.Mixed.Example.com")?.severity == .warning)
        #expect(rules.rule(forHost: "mixed.example.com").originDescription == "exception mixed.example.com")
        #expect(issue("NSPinnedDomains.pinned.example.com.NSPinnedCAIdentities[0].SPKI-SHA256-BASE64")?.severity == .error)
        #expect(issue("NSPinnedDomains.pinned.example.com.NSPinnedCAIdentities[1]")?.severity == .error)
        #expect(rules.rule(forHost: "pinned.example.com").pinnedDomain?.caIdentities == [], "pins nothing: every connection fails")
        #expect(issue("TSKPinnedDomains.single.example.com.TSKPublicKeyHashes")?.message.contains("backup pin") == true)
        #expect(rules.rule(forHost: "single.example.com").pinSet?.refusal != nil)
        #expect(issue("TSKPinnedDomains.single.example.com.TSKExpirationDate")?.message.contains("never expires") == true)
    }

    @Test("every other wrong shape is reported at its key path, and the stricter choice kept")
    func wrongShapes() throws {
        let (ignored, ignoredIssues) = try configuration(["NSAppTransportSecurity": true])
        #expect(ignoredIssues.map(\.keyPath) == ["NSAppTransportSecurity"])
        #expect(ignored == TransportSecurityConfiguration(), "ATS's defaults apply")

        let (rules, issues) = try configuration([
            "NSExceptionDomains": ["10.0.0.0/8": ["NSIncludesSubdomains": true, "NSExceptionMinimumTLSVersion": 12]],
            "NSPinnedDomains": [
                "a.example.com": "not a dictionary",
                "b.example.com": ["NSIncludesSubdomains": true],
                "c.example.com": ["NSPinnedLeafIdentities": "not an array"],
            ],
            "TSKPinnedDomains": [
                "d.example.com": 7,
                "e.example.com": ["TSKPublicKeyHashes": [pinA, 42, "md5/x", pinB], "TSKReportUris": ["ftp://example.com/", 5, "https://report.example.com/"]],
                "f.example.com": ["TSKPublicKeyHashes": "not an array", "TSKReportUris": "not an array"],
            ],
        ])
        func message(_ path: String) -> String? { issues.first { $0.keyPath == path }?.message }
        #expect(message("NSExceptionDomains.10.0.0.0/8.NSIncludesSubdomains") == "has no effect on an IP address or range")
        #expect(message("NSExceptionDomains.10.0.0.0/8.NSExceptionMinimumTLSVersion") == "must be a string; ignored, so the default applies")
        #expect(rules.rule(forHost: "10.1.2.3").minimumTLSVersion == .tls12)
        #expect(message("NSPinnedDomains.a.example.com")?.contains("pinned to nothing, so every connection to it fails") == true)
        #expect(rules.rule(forHost: "a.example.com").pinnedDomain?.caIdentities == [])
        #expect(message("NSPinnedDomains.b.example.com")?.contains("nothing is pinned") == true)
        #expect(message("NSPinnedDomains.c.example.com.NSPinnedLeafIdentities")?.contains("every connection fails") == true)
        #expect(rules.rule(forHost: "c.example.com").pinnedDomain?.leafIdentities == [])
        #expect(message("TSKPinnedDomains.d.example.com")?.contains("the pin set is refused and blocks the domain") == true)
        #expect(rules.rule(forHost: "d.example.com").pinSet?.refusal == "the pin set is not a dictionary")
        #expect(message("TSKPinnedDomains.e.example.com.TSKPublicKeyHashes[1]") == "must be a string; ignored")
        #expect(message("TSKPinnedDomains.e.example.com.TSKPublicKeyHashes[2]")?.hasSuffix("; ignored") == true)
        #expect(message("TSKPinnedDomains.e.example.com.TSKReportUris[0]") == "not an http(s) URL; ignored")
        #expect(message("TSKPinnedDomains.e.example.com.TSKReportUris[1]") == "not an http(s) URL; ignored")
        let kept = rules.rule(forHost: "e.example.com").pinSet
        #expect(kept?.pins.count == 2 && kept?.refusal == nil, "the two good pins are kept")
        #expect(kept?.reportURLs == [URL(string: "https://report.example.com/")!])
        #expect(message("TSKPinnedDomains.f.example.com.TSKPublicKeyHashes") == "must be an array of base64 SHA-256 SPKI hashes")
        #expect(message("TSKPinnedDomains.f.example.com.TSKReportUris") == "must be an array of URLs; ignored")
        #expect(rules.rule(forHost: "f.example.com").pinSet?.refusal != nil, "no pins: refused, the domain blocked")

        let (_, sectionIssues) = try configuration(["NSExceptionDomains": ["example.com"], "TSKPinnedDomains": "example.com"])
        #expect(sectionIssues.map(\.keyPath) == ["NSExceptionDomains", "TSKPinnedDomains"])
        #expect(sectionIssues.map(\.message) == ["must be a dictionary; ignored", "must be a dictionary of domains; ignored"])
    }

    @Test("lint warns about an ignored NSAllowsArbitraryLoads, NSRequiresCertificateTransparency, one pinned identity, a report-only pin set")
    func lintWarnings() throws {
        let (rules, issues) = try configuration([
            "NSAllowsArbitraryLoads": true,
            "NSAllowsLocalNetworking": true,
            "NSExceptionDomains": ["ct.example.com": ["NSRequiresCertificateTransparency": true]],
            "NSPinnedDomains": ["pinned.example.com": ["NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": String(pinA.dropFirst(7))]]]],
            "TSKPinnedDomains": ["report.example.com": ["TSKPublicKeyHashes": [pinA, pinB], "TSKEnforcePinning": false]],
        ])
        #expect(issues.isEmpty, "\(issues)")
        let lint = rules.lint(publicSuffixes: nil)
        func message(_ path: String) -> String? { lint.first { $0.keyPath == path && $0.severity == .warning }?.message }
        #expect(message("NSAllowsArbitraryLoads")?.hasPrefix("ignored because") == true)
        #expect(message("NSExceptionDomains.ct.example.com.NSRequiresCertificateTransparency")?.contains("refuses every connection until SCTs can be verified") == true)
        #expect(message("NSPinnedDomains.pinned.example.com") == "one pin only: a key change locks clients out; add a backup pin")
        #expect(message("TSKPinnedDomains.report.example.com.TSKEnforcePinning")?.hasPrefix("report-only") == true)
        #expect(lint.count == 4, "\(lint)")
    }

    @Test("TrustKit's own place for pin sets (TSKConfiguration.TSKPinnedDomains), and a plist date as TSKExpirationDate")
    func trustKitConfiguration() throws {
        let expiry = Date(timeIntervalSince1970: 1_900_000_000)
        let info: [String: Any] = [
            "CFBundleIdentifier": "com.example.app",
            "TSKConfiguration": ["TSKPinnedDomains": ["api.example.com": ["TSKPublicKeyHashes": [pinA, pinB], "TSKExpirationDate": expiry]]],
        ]
        let (rules, issues) = try TransportSecurityConfiguration.load(from: PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0))
        #expect(issues.isEmpty, "\(issues)")
        #expect(rules.keyPaths.pinSets == "TSKConfiguration.TSKPinnedDomains")
        let set = rules.rule(forHost: "api.example.com").pinSet
        #expect(set?.pins.count == 2)
        #expect(set?.expirationDate == expiry)

        let (_, wrong) = try TransportSecurityConfiguration.load(from: PropertyListSerialization.data(
            fromPropertyList: ["CFBundleIdentifier": "com.example.app", "TSKConfiguration": "pins"] as [String: Any], format: .xml, options: 0))
        #expect(wrong.map(\.keyPath) == ["TSKConfiguration"])
        #expect(wrong.first?.message == "must be a dictionary; ignored")
    }

    @Test("a binary plist date that is no time (NaN, infinite) is reported and the pin set kept in force: NaN read as expired, and Foundation trapped printing it", arguments: [Double.nan, .infinity, -.infinity])
    func dateThatIsNoTime(seconds: Double) throws {
        let info: [String: Any] = [
            "TSKPinnedDomains": ["api.example.com": ["TSKPublicKeyHashes": [pinA, pinB], "TSKExpirationDate": Date(timeIntervalSinceReferenceDate: seconds)]],
        ]
        let binary = try PropertyListSerialization.data(fromPropertyList: info, format: .binary, options: 0)
        let (rules, issues) = try TransportSecurityConfiguration.load(from: binary)
        let set = try #require(rules.rule(forHost: "api.example.com").pinSet)
        #expect(set.expirationDate == nil)
        #expect(set.isActive(at: Date()))
        #expect(issues.contains { $0.keyPath == "TSKPinnedDomains.api.example.com.TSKExpirationDate" && $0.message.contains("not a time") }, "\(issues)")
    }

    @Test("a number is not a boolean: JSON's 1 and a plist's <integer>1</integer> or <real>1</real> are reported and ignored, as ATS ignores them")
    func numbersAreNotBooleans() throws {
        let json = Data(#"""
            {"NSAllowsArbitraryLoads": 1, "NSAllowsLocalNetworking": false,
             "NSExceptionDomains": {"legacy.example.com": {"NSExceptionAllowsInsecureHTTPLoads": 1.0, "NSIncludesSubdomains": true}}}
            """#.utf8)
        let xml = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>NSAllowsArbitraryLoads</key><integer>1</integer>
            <key>NSAllowsLocalNetworking</key><false/>
            <key>NSExceptionDomains</key><dict><key>legacy.example.com</key><dict>
            <key>NSExceptionAllowsInsecureHTTPLoads</key><real>1</real>
            <key>NSIncludesSubdomains</key><true/></dict></dict>
            </dict></plist>
            """.utf8)
        let binary = try PropertyListSerialization.data(
            fromPropertyList: try PropertyListSerialization.propertyList(from: xml, format: nil), format: .binary, options: 0)
        for (name, data) in [("JSON", json), ("XML plist", xml), ("binary plist", binary)] {
            let (rules, issues) = try TransportSecurityConfiguration.load(from: data, source: name)
            #expect(issues.map(\.keyPath) == ["NSAllowsArbitraryLoads", "NSExceptionDomains.legacy.example.com.NSExceptionAllowsInsecureHTTPLoads"], "\(name)")
            #expect(issues.allSatisfy { $0.severity == .error && $0.message.hasPrefix("must be a boolean") }, "\(name)")
            #expect(rules.allowsArbitraryLoads == nil, "\(name)")
            #expect(rules.allowsLocalNetworking == false, "\(name): a real boolean is still read")
            #expect(rules.rule(forHost: "www.legacy.example.com").originDescription.hasPrefix("exception legacy.example.com"), "\(name)")
            #expect(!rules.rule(forHost: "www.legacy.example.com").allowsCleartext, "\(name)")
            #expect(!rules.rule(forHost: "www.example.org").allowsCleartext, "\(name)")
        }
    }

    @Test(
        "a domain key that could never match a host is refused with the reason (it was taken as a name nothing matches)",
        arguments: [
            ("", "is empty"),
            ("*.example.com", "has a wildcard"),
            ("example.com:443", "has a port"),
            ("https://example.com", "is a URL: write only its host"),
            ("10.0.0.0/33", "is not valid CIDR notation"),
            (".example.com", "has an empty label (a leading dot or '..')"),
            ("api..example.com", "has an empty label"),
            ("exämple.com", "is not ASCII: write the name in its ASCII form (IDNA, xn--…)"),
            ("example.com\u{200B}", "is not ASCII"),
            ("\u{212A}ey.example.com", "is not ASCII"),
            ("ex ample.com", "has the character ' '"),
            ("example.com/path", "is not valid CIDR notation"),
            ("127.1", "is an IPv4 address in a shorthand form that resolvers read as 127.0.0.1: write 127.0.0.1"),
            ("010.0.0.1", "is an IPv4 address in a shorthand form that resolvers read as 8.0.0.1: write 8.0.0.1"),
            // inet_pton reads a C string: the NUL must not end the key at 10.0.0.1.
            ("10.0.0.1\u{0}.example.com", "has the character U+0000, which no host name has"),
            (String(repeating: "a", count: 64) + ".com", "has a label longer than 63 characters"),
            (Array(repeating: String(repeating: "a", count: 63), count: 4).joined(separator: "."), "is longer than the 253 characters"),
        ]
    )
    func refusedDomainKeys(key: String, reason: String) throws {
        #expect("\(key)") {
            try DomainKey.parse(key)
        } throws: { error in
            (error as? DomainKeyError)?.reason.hasPrefix(reason) == true
        }
        let (_, issues) = try configuration(["NSExceptionDomains": [key: ["NSExceptionAllowsInsecureHTTPLoads": true]]])
        #expect(issues.map(\.severity) == [.error])
        #expect(issues.first?.message.hasPrefix("'\(key)' \(reason)") == true)
        #expect(issues.first?.message.hasSuffix("; the entry never matches") == true)
    }

    @Test("a key that is not ASCII is refused with the ASCII form a URL with it reaches, when it has one")
    func nonASCIIKeyAdvice() {
        func reason(_ key: String) -> String? {
            do { _ = try DomainKey.parse(key) } catch { return error.reason }
            return nil
        }
        #expect(reason("exämple.com")?.hasSuffix(": xn--exmple-cua.com") == true)
        #expect(reason("公司.cn")?.hasSuffix(": xn--55qx5d.cn") == true)
        // What a URL would reach instead: the KELVIN SIGN maps to k, U+200B to nothing.
        #expect(reason("\u{212A}ey.example.com")?.hasSuffix(": key.example.com") == true)
        #expect(reason("example.com\u{200B}")?.hasSuffix(": example.com") == true)
        // No advice where a URL would end the host early: the rest of the name would be lost.
        for key in ["exä?mple.com", "user@exämple.com", "exä#mple.com", "exä mple.com"] {
            #expect(reason(key)?.hasSuffix("as hosts are looked up") == true, "\(key)")
        }
    }

    @Test("domain keys that are hosts, addresses and ranges are kept, in canonical form")
    func acceptedDomainKeys() throws {
        #expect(try DomainKey.parse("Example.COM.") == .dnsName("example.com"))
        #expect(try DomainKey.parse(" \texample.com\u{3000}") == .dnsName("example.com"))
        #expect(try DomainKey.parse("_dmarc.xn--exmple-cua.com") == .dnsName("_dmarc.xn--exmple-cua.com"))
        #expect(try DomainKey.parse("192.168.42.63").description == "192.168.42.63")
        #expect(try DomainKey.parse("2001:db8:12::34").description == "2001:db8:12::34")
        #expect(try DomainKey.parse("2001:db8:12::1/48").description == "2001:db8:12::/48")
    }

    @Test("unreadable input: empty, garbage, truncated binary plist, a top-level array")
    func unreadable() throws {
        let binary = try PropertyListSerialization.data(fromPropertyList: ["NSAppTransportSecurity": Self.ats], format: .binary, options: 0)
        let inputs: [(Data, String)] = [
            (Data(), "empty"),
            (Data("<plist><dict><key>x".utf8), "not a valid property list (XML or binary): "),
            (binary.prefix(binary.count / 2), "not a valid property list"),
            (Data("[1, 2]".utf8), "top level"),
            (Data("{\"NSAllowsArbitraryLoads\": tru".utf8), "not valid JSON: unexpected end of file during JSON parse"),
        ]
        for (data, words) in inputs {
            #expect {
                _ = try TransportSecurityConfiguration.load(from: data, source: "input.plist")
            } throws: { error in
                guard let error = error as? TransportSecurityConfigurationError else { return false }
                return error.source == "input.plist" && (error.reason.contains(words) || error.reason.contains("top level"))
                    && !error.reason.contains("not in the correct format")
            }
        }
        #expect(throws: TransportSecurityConfigurationError.self) { _ = try TransportSecurityConfiguration.load(contentsOf: "/no/such/Info.plist") }
    }

    /// A binary plist of two objects: object 0 at offset 8 (`first`, three bytes), object 1 at
    /// offset 11 (the string "a"), one-byte offsets and references.
    private static func binaryPlist(first: [UInt8]) -> Data {
        var bytes = Array("bplist00".utf8)
        bytes += first
        bytes += [0x51, UInt8(ascii: "a")]
        bytes += [0x08, 0x0B]  // the offset table, at offset 13
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]  // trailer: offsets and references are one byte
        bytes += [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 13]  // 2 objects, top 0, table at 13
        return Data(bytes)
    }

    /// A binary plist of `count` arrays, each holding `referencesToNext` references to the next
    /// object, and last the string "a"; two-byte offsets and references.
    static func binaryPlistOfArrays(count: Int, referencesToNext: Int) -> Data {
        func twoBytes(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for index in 0..<count {
            offsets.append(bytes.count)
            let marker: [UInt8] = referencesToNext < 15 ? [0xA0 | UInt8(referencesToNext)] : [0xAF, 0x10, UInt8(referencesToNext)]
            bytes += marker + Array(repeating: twoBytes(index + 1), count: referencesToNext).flatMap { $0 }
        }
        offsets.append(bytes.count)
        bytes += [0x51, UInt8(ascii: "a")]
        let table = bytes.count
        bytes += offsets.flatMap(twoBytes)
        bytes += [0, 0, 0, 0, 0, 0, 2, 2]
        bytes += [0, 0, 0, 0, 0, 0] + twoBytes(count + 1) + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0] + twoBytes(table)
        return Data(bytes)
    }

    /// Found by `Fuzz/run.sh FuzzConfiguration`: Foundation crashes on both (PropertyListDecoder
    /// recursing forever on a cycle, PropertyListSerialization bridging a set of containers).
    @Test("binary plists that crash or stall Foundation are refused first: an object containing itself, a set, a reference to nothing, shared references standing for 2^40 values, 600 levels of nesting")
    func hostileBinaryPlists() throws {
        let cases: [([UInt8], String)] = [
            ([0xD1, 0x01, 0x00], "an object contains itself"),  // { "a": itself }
            ([0xC2, 0x01, 0x01], "containing a set"),  // set { "a", "a" }
            ([0xA1, 0x07, 0x00], "reference to a missing object"),  // [ object 7 ]
        ]
        for (first, reason) in cases {
            #expect {
                _ = try TransportSecurityConfiguration.load(from: Self.binaryPlist(first: first), source: "hostile.plist")
            } throws: { error in
                (error as? TransportSecurityConfigurationError)?.reason.contains(reason) == true
            }
        }
        // Containers sharing their children twice over, level after level: 40 levels, 250 bytes,
        // stand for 2^40 values, which Foundation would expand forever; and a list nested 600
        // deep, past the 512 levels Foundation's decoder can take.
        let hostileShapes: [(Data, String)] = [
            (Self.binaryPlistOfArrays(count: 40, referencesToNext: 2), "stand for more than"),
            (Self.binaryPlistOfArrays(count: 600, referencesToNext: 1), "nested 601 deep"),
        ]
        for (data, reason) in hostileShapes {
            let clock = ContinuousClock()
            let start = clock.now
            #expect {
                _ = try TransportSecurityConfiguration.load(from: data, source: "hostile.plist")
            } throws: { error in
                (error as? TransportSecurityConfigurationError)?.reason.contains(reason) == true
            }
            #expect(clock.now - start < .seconds(1))
        }
        // Sharing values is what writers do: a hundred references to one string pass the guard.
        #expect {
            _ = try TransportSecurityConfiguration.load(from: Self.binaryPlistOfArrays(count: 1, referencesToNext: 100), source: "shared.plist")
        } throws: { error in
            (error as? TransportSecurityConfigurationError)?.reason.contains("top level") == true
        }
        // A sound list of the same shape passes the guard: [ "a" ], then "not a dictionary".
        #expect {
            _ = try TransportSecurityConfiguration.load(from: Self.binaryPlist(first: [0xA1, 0x01, 0x00]), source: "array.plist")
        } throws: { error in
            (error as? TransportSecurityConfigurationError)?.reason.contains("top level") == true
        }
    }
}
