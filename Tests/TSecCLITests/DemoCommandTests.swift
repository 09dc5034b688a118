import Foundation
import Testing

@Suite("tsec demo")
struct DemoCommandTests {
    @Test("the JSON matrix has every server and configuration, and every cell matches its expectation")
    func matrix() async throws {
        let result = await tsec(["demo", "--json"])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.stdout.utf8)) as? [String: Any])
        let servers = try #require(json["servers"] as? [String])
        #expect(servers == ["legit", "mitm-trusted", "mitm-untrusted", "self-signed", "wrong-host", "expired", "not-yet-valid", "reissue-same-key", "reissue-new-key"])
        let configurations = try #require(json["configurations"] as? [[String: Any]])
        #expect(configurations.count == 19)
        for configuration in configurations {
            let cells = try #require(configuration["cells"] as? [[String: String]])
            #expect(cells.map { $0["server"] } == servers)
            for cell in cells {
                #expect(cell["outcome"] == cell["expected"], "\(configuration["name"] ?? "?") / \(cell["server"] ?? "?")")
                #expect((cell["outcome"] == "blocked") == !(cell["reason"] ?? "").isEmpty)
            }
        }
        // Spot checks straight from SPEC §2: the default lets the user-installed proxy through,
        // root-key pinning does not, and leaf-certificate pinning does not survive a re-issue.
        func outcome(_ name: String, _ server: String) -> String? {
            let row = configurations.first { $0["name"] as? String == name }
            return (row?["cells"] as? [[String: String]])?.first { $0["server"] == server }?["outcome"]
        }
        #expect(outcome("1 none", "mitm-trusted") == "allowed")
        #expect(outcome("4 key:root", "mitm-trusted") == "blocked")
        #expect(outcome("7 cert:leaf", "reissue-same-key") == "blocked")
        #expect(outcome("6 key:leaf, AC", "expired") == "allowed")
    }

    @Test("the text report flags configurations a man in the middle gets through, and has no colour off a terminal")
    func text() async {
        let result = await tsec(["demo"])
        #expect(result.status == 0)
        #expect(result.output.stdout.contains("⚠ lets an intercepting proxy with a user-installed root through"))
        #expect(result.output.stdout.contains("lets ANY man in the middle through"))
        #expect(result.output.stdout.contains("Every cell matches SPEC §2."))
        #expect(!result.output.stdout.contains("\u{1B}["))
    }
}
