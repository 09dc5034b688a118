import Foundation
import TSecCLI
import Testing

@Suite("tsec lint")
struct LintCommandTests {
    let directory: String = {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("tsec-lint-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    let pinA = "sha256/" + Data(repeating: 0xA1, count: 32).base64EncodedString()
    let pinB = "sha256/" + Data(repeating: 0xB2, count: 32).base64EncodedString()

    func write(_ rules: [String: Any], plist: Bool = false) throws -> String {
        let path = (directory as NSString).appendingPathComponent("\(UUID().uuidString).\(plist ? "plist" : "json")")
        let data = plist
            ? try PropertyListSerialization.data(fromPropertyList: ["CFBundleName": "App", "NSAppTransportSecurity": rules], format: .xml, options: 0)
            : try JSONSerialization.data(withJSONObject: rules)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `tsec lint` at 2030-01-01 with Debian's public suffix list.
    func lint(_ path: String, _ more: [String] = []) async -> (status: Int32, output: CommandOutput) {
        await tsec(["lint", path, "--at", "2030-01-01T00:00:00Z"] + more)
    }

    @Test("a sound configuration: no errors, exit 0")
    func clean() async throws {
        let path = try write([
            "NSExceptionDomains": ["example.com": ["NSIncludesSubdomains": true, "NSExceptionMinimumTLSVersion": "TLSv1.3"]],
            "NSPinnedDomains": ["example.com": ["NSPinnedCAIdentities": [["SPKI-SHA256-BASE64": String(pinA.dropFirst(7))], ["SPKI-SHA256-BASE64": String(pinB.dropFirst(7))]]]],
        ], plist: true)
        let result = await lint(path)
        #expect(result.status == 0, "\(result.output.stdout)")
        #expect(result.output.stdout == "0 errors, 0 warnings\n")
    }

    @Test("each risky setting is reported with its key path; errors exit 1")
    func findings() async throws {
        let path = try write([
            "NSAllowsArbitraryLoads": true,
            "NSExceptionDomains": [
                "co.uk": ["NSIncludesSubdomains": true],
                "legacy.example.com": ["NSExceptionMinimumTLSVersion": "TLSv1.0", "NSExceptionRequiresForwardSecrecy": false, "NSExceptionAllowsInsecureHTTPLoads": true],
                "example.com": ["NSIncludesSubdomains": true],
                "api.example.com": ["NSIncludesSubdomains": true],
            ],
            "TSKPinnedDomains": [
                "single.example.com": ["TSKPublicKeyHashes": [pinA]],
                "soon.example.com": ["TSKPublicKeyHashes": [pinA, pinB], "TSKExpirationDate": "2030-01-20"],
                "gone.example.com": ["TSKPublicKeyHashes": [pinA, pinB], "TSKExpirationDate": "2029-12-01"],
                "orphan.example.org": ["TSKPublicKeyHashes": [pinA, pinB], "TSKExcludeSubdomainFromParentPolicy": true],
            ],
        ], plist: true)
        let result = await lint(path)
        #expect(result.status == 1)
        let expected = [
            "error: NSAppTransportSecurity.NSAllowsArbitraryLoads: ATS is off for every domain without an exception",
            "error: NSAppTransportSecurity.NSExceptionDomains.co.uk.NSIncludesSubdomains: co.uk is a public suffix",
            "warning: NSAppTransportSecurity.NSExceptionDomains.legacy.example.com.NSExceptionAllowsInsecureHTTPLoads: cleartext",
            "warning: NSAppTransportSecurity.NSExceptionDomains.legacy.example.com.NSExceptionMinimumTLSVersion: TLSv1.0 is below TLS 1.2",
            "warning: NSAppTransportSecurity.NSExceptionDomains.legacy.example.com.NSExceptionRequiresForwardSecrecy: forward secrecy is off",
            "warning: NSAppTransportSecurity.NSExceptionDomains.api.example.com: sets nothing its including ancestor example.com does not already set",
            "error: NSAppTransportSecurity.TSKPinnedDomains.single.example.com.TSKPublicKeyHashes: a pin set needs at least two distinct valid pins",
            "warning: NSAppTransportSecurity.TSKPinnedDomains.soon.example.com.TSKExpirationDate: expires in 19 days",
            "warning: NSAppTransportSecurity.TSKPinnedDomains.gone.example.com.TSKExpirationDate: expired on 2029-12-01",
            "warning: NSAppTransportSecurity.TSKPinnedDomains.orphan.example.org.TSKExcludeSubdomainFromParentPolicy: no parent pin set",
        ]
        for line in expected {
            #expect(result.output.stdout.contains(line), "missing: \(line)")
        }
        #expect(result.output.stdout.hasSuffix("3 errors, 7 warnings\n"), "\(result.output.stdout)")
    }

    @Test("two keys naming the same domain, and malformed values, come from loading with their key paths")
    func duplicatesAndMalformed() async throws {
        let path = try write(["NSExceptionDomains": ["Example.com": [String: Any](), "example.com.": [String: Any](), "10.0.0.0/40": [String: Any]()]])
        let result = await lint(path, ["--json"])
        #expect(result.status == 1)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.stdout.utf8)) as? [String: Any])
        let issues = try #require(json["issues"] as? [[String: String]])
        #expect(issues.contains { $0["keyPath"] == "NSExceptionDomains.example.com." && $0["message"]?.contains("names the same example.com") == true })
        #expect(issues.contains { $0["keyPath"] == "NSExceptionDomains.10.0.0.0/40" && $0["severity"] == "error" })
        #expect(json["errors"] as? Int == 2)
    }

    @Test("a public suffix list of one's own; unreadable input exits 2")
    func inputs() async throws {
        let list = (directory as NSString).appendingPathComponent("suffixes.dat")
        try "// test list\nexample\n*.wild.example\n!www.wild.example\n".write(toFile: list, atomically: true, encoding: .utf8)
        let path = try write(["NSExceptionDomains": [
            "corp.wild.example": ["NSIncludesSubdomains": true],
            "www.wild.example": ["NSIncludesSubdomains": true],
        ]])
        let result = await lint(path, ["--public-suffix-list", list])
        #expect(result.output.stdout.contains("corp.wild.example is a public suffix"))
        #expect(!result.output.stdout.contains("www.wild.example is a public suffix"))
        #expect(await lint("/no/such/config.plist").status == 2)
        #expect(await lint(path, ["--public-suffix-list", "/no/such/list.dat"]).status == 2)
    }
}
