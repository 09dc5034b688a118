import Foundation
import TSecCLI
import Testing

@Suite("tsec demo")
struct DemoCommandTests {
    @Test("the JSON matrix has every server and configuration, and every cell matches its expectation")
    func matrix() async throws {
        let result = await tsec(["demo", "--json"])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.stdout.utf8)) as? [String: Any])
        let servers = try #require(json["servers"] as? [String])
        #expect(servers == ["legit", "mitm-trusted", "mitm-untrusted", "self-signed", "wrong-host", "expired", "not-yet-valid", "reissue-same-key", "reissue-new-key", "appended-genuine"])
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
        // Every cell against the policy's rules, written out here rather than taken from the demo's own
        // expectations: "A" allowed, "." blocked, in the server order above. The last server
        // sends its own leaf, then the genuine leaf, intermediate and root: only the row that
        // accepts everything lets it through.
        let specification: [String: String] = [
            "1 none": "AA.....AA.",
            "2 none, no host": "AA..A..AA.",
            "3 none, AC, VD": "..........",
            "3 none, AC": "AAAAAAAAAA",
            "4 key:leaf": "A......A..",
            "4 key:root": "A......AA.",
            "5 key:leaf, no host": "A......A..",
            "5 key:root, no host": "A...A..AA.",
            "6 key:leaf, AC": "A....AAA..",
            "6 key:root, AC": "A......AA.",
            "7 cert:leaf": "A.........",
            "7 cert:root": "A......AA.",
            "8 cert:leaf, no host": "A.........",
            "8 cert:root, no host": "A...A..AA.",
            "9 cert:leaf, AC": "A.........",
            "9 cert:root, AC": "A......AA.",
            "10 cert:leaf, AC, no host": "A.........",
            "10 cert:root, AC, no host": "A...A..AA.",
            "pin set leaf+backup": "A......A..",
        ]
        #expect(Set(configurations.compactMap { $0["name"] as? String }) == Set(specification.keys))
        for configuration in configurations {
            let name = configuration["name"] as? String ?? "?"
            let cells = configuration["cells"] as? [[String: String]] ?? []
            let measured = String(cells.map { $0["outcome"] == "allowed" ? "A" : "." })
            #expect(measured == specification[name], "\(name)")
        }
        // Spot checks straight from the policy's rules: the default lets the user-installed proxy through,
        // root-key pinning does not, and leaf-certificate pinning does not survive a re-issue.
        func outcome(_ name: String, _ server: String) -> String? {
            let row = configurations.first { $0["name"] as? String == name }
            return (row?["cells"] as? [[String: String]])?.first { $0["server"] == server }?["outcome"]
        }
        #expect(outcome("1 none", "mitm-trusted") == "allowed")
        #expect(outcome("4 key:root", "mitm-trusted") == "blocked")
        #expect(outcome("7 cert:leaf", "reissue-same-key") == "blocked")
        #expect(outcome("6 key:leaf, AC", "expired") == "allowed")
        #expect(outcome("6 key:leaf, AC", "appended-genuine") == "blocked")
        #expect(outcome("pin set leaf+backup", "appended-genuine") == "blocked")
    }

    @Test("the text report flags configurations a man in the middle gets through, and has no colour off a terminal")
    func text() async {
        let result = await tsec(["demo"])
        #expect(result.status == 0)
        #expect(result.output.stdout.contains("⚠ lets an intercepting proxy with a user-installed root through"))
        #expect(result.output.stdout.contains("lets ANY man in the middle through"))
        #expect(result.output.stdout.contains("Every cell matches the documented outcomes."))
        // The advice is drawn from the results: root-key pinning is recommended, "accept everything" condemned.
        #expect(result.output.stdout.contains("pin the root or intermediate key (4 key:root / 7 cert:root / 9 cert:root, AC)"))
        // Pins matched without validation: what they still check, and what they do not.
        #expect(result.output.stdout.contains("Where nothing is validated (6 key:leaf, AC / 6 key:root, AC), a pin matches only the leaf and the certificates that signed it, link by link: the appended-genuine server, which sends the real certificates after its own leaf, is refused."))
        #expect(!result.output.stdout.contains("Pin the leaf's key there"), "leaf pins under allowInvalidCertificates are not recommended as safe")
        #expect(!result.output.stdout.contains("An attacker who appends the genuine certificates after their own leaf got through"))
        #expect(result.output.stdout.contains("lets any man in the middle through (3 none, AC)"))
        #expect(!result.output.stdout.contains("\u{1B}["))
    }
}

@Suite("tsec demo --serve")
struct DemoServeTests {
    /// Waits until `output` has a line starting with `prefix` (and containing `containing`).
    func line(in output: CommandOutput, startingWith prefix: String, containing: String = "") async throws -> String {
        for _ in 0..<400 {
            if let line = output.stdout.split(separator: "\n").first(where: { $0.hasPrefix(prefix) && (containing.isEmpty || $0.contains(containing)) }) {
                return String(line)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("no line starting with \"\(prefix)\"; stdout so far:\n\(output.stdout)\nstderr:\n\(output.stderr)")
        throw CancellationError()
    }

    @Test("the served lab answers tsec get as printed, and Ctrl-C (SIGINT) stops it cleanly")
    func serve() async throws {
        let output = CommandOutput.capturing()
        let demo = Task { await TSec.run(arguments: ["demo", "--serve", "--no-color"], output: output) }
        _ = try await line(in: output, startingWith: "Serving the lab until Ctrl-C")
        let legitimate = try await line(in: output, startingWith: "  tsec get https://api.example.test:", containing: "--system-roots")
        let pinned = try await line(in: output, startingWith: "  tsec get ", containing: "--pin ")
        func arguments(_ line: String) -> [String] { line.split(separator: " ").dropFirst().map(String.init) }

        let fetched = await tsec(arguments(legitimate))
        #expect(fetched.status == 0, "\(fetched.output.stderr)")
        #expect(fetched.output.stdout == "hello from the legit server of the TransportSecurity lab\n")
        // The intercepting proxy's root is in the served system store, but not pinned.
        let intercepted = await tsec(arguments(pinned))
        #expect(intercepted.status == 1)
        #expect(intercepted.output.stderr.contains("rule 6"))

        kill(getpid(), SIGINT)
        #expect(await demo.value == 0)
        #expect(output.stdout.contains("Stopped."))
        // The files are gone and nothing listens any more.
        let systemRoots = arguments(legitimate).last ?? ""
        #expect(!FileManager.default.fileExists(atPath: systemRoots))
        let afterwards = await tsec(Array(arguments(legitimate).dropLast(2)))
        #expect(afterwards.status == 3)
    }
}
