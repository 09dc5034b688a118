import Foundation
import PKIBuilder
import Testing
import TransportSecurity

/// An IPv4-mapped IPv6 literal (`[::ffff:203.0.113.5]`) reaches the IPv4 address it maps, so it
/// is that address for every rule, exception, pin and certificate name: written the other way,
/// it must neither escape a rule nor miss a pin.
@Suite("IPv4-mapped IPv6 literals are their IPv4 addresses")
struct IPv4MappedAddressTests {
    let lab = LabFixture.shared.lab

    @Test("the host reads as the IPv4 address, in every spelling", arguments: ["[::ffff:203.0.113.5]", "::ffff:203.0.113.5", "[::FFFF:CB00:7105]", "[0:0:0:0:0:ffff:203.0.113.5]"])
    func host(_ text: String) {
        #expect(ServerHost(text) == .ipAddress("203.0.113.5"))
        // Not mapped: kept as IPv6 (the IPv4-compatible and NAT64 forms are other addresses).
        for other in ["[::203.0.113.5]", "[64:ff9b::203.0.113.5]", "[::fffe:203.0.113.5]"] {
            #expect(ServerHost(other).isIPAddress && ServerHost(other).name.contains(":"), "\(other)")
        }
    }

    @Test("a certificate naming the IPv4 address serves the mapped literal, and a mapped subjectAltName the IPv4 host")
    func certificateNames() async throws {
        let root = try lab.pki.issueRoot(.certificateAuthority("Address Root"))
        func evaluate(_ leaf: IssuedCertificate, _ host: String) async -> TrustEvaluation {
            await ServerTrust(chain: [leaf.der], policy: .ssl(host), anchors: [root.der], systemStore: .empty, evaluationTime: lab.pki.now).evaluate()
        }
        let v4 = try lab.pki.issue(.server("203.0.113.5", dnsNames: [], ipAddresses: ["203.0.113.5"]), by: root)
        #expect(await evaluate(v4, "[::ffff:203.0.113.5]").isTrusted)
        #expect(await evaluate(v4, "[::ffff:203.0.113.6]").failures.map(\.code) == [.hostnameMismatch])
        let mapped = try lab.pki.issue(.server("203.0.113.5", dnsNames: [], ipAddresses: ["::ffff:203.0.113.5"]), by: root)
        #expect(await evaluate(mapped, "203.0.113.5").isTrusted)
        let mismatch = await evaluate(mapped, "203.0.113.6")
        #expect(mismatch.summary.contains("is for 203.0.113.5, not for 203.0.113.6"), "\(mismatch.summary)")
    }

    @Test("pins and evaluators keyed by the IPv4 address apply to the mapped literal: a trust manager's pattern, a pin set, NSPinnedDomains")
    func pins() async throws {
        let manager = try ServerTrustManager(evaluators: ["203.0.113.5": InsecureDisabledTrustEvaluator()])
        #expect(manager.rule(forHost: "[::ffff:203.0.113.5]") != nil)
        #expect(manager.rule(forHost: "[::ffff:203.0.113.6]") == nil)
        let backup = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        let pin = lab.leaf.der.spkiPin.description
        let (rules, issues) = try TransportSecurityConfiguration.load(from: JSONSerialization.data(withJSONObject: [
            "TSKPinnedDomains": ["203.0.113.5": ["TSKPublicKeyHashes": [pin, backup]]],
            "NSPinnedDomains": ["203.0.113.5": ["NSPinnedLeafIdentities": [["SPKI-SHA256-BASE64": String(pin.dropFirst(7))]]]],
            "NSExceptionDomains": ["203.0.113.0/24": ["NSExceptionAllowsInsecureHTTPLoads": true]],
        ]))
        #expect(issues.isEmpty, "\(issues)")
        let rule = rules.rule(forHost: "[::ffff:203.0.113.5]")
        #expect(rule.pinSet?.pins.first?.description == pin)
        #expect(rule.pinnedDomain != nil)
        #expect(rule.allowsCleartext)
        #expect(rule.host == "203.0.113.5")
    }
}
