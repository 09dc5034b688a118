import Foundation
import TSecCLI
import TestServers
import Testing

@Suite("tsec reachability")
struct ReachabilityCommandTests {
    @Test("a host's status as text or JSON; exit 0 reachable, 1 not, 2 when the namespace cannot be entered")
    func oneShot() async {
        let loopback = await tsec(["reachability", "127.0.0.1", "--json"])
        #expect(loopback.status == 0)
        #expect(loopback.output.stdout == #"{"interface":"lo","status":"reachable","via":"loopback"}"# + "\n")

        let text = await tsec(["reachability", "::1"])
        #expect(text.output.stdout == "reachable via loopback (lo)\n")

        let nowhere = await tsec(["reachability", "name.that.does.not.resolve.invalid", "--json"])
        #expect(nowhere.status == 1)
        #expect(nowhere.output.stdout == #"{"status":"notReachable"}"# + "\n")

        let empty = await tsec(["reachability", ""])
        #expect(empty.status == 2)
        #expect(empty.output.stderr.contains("the host is empty"))
        // What no resolver could answer is a usage error with a hint, not "notReachable".
        for (argument, hint) in [
            ("https://localhost/path", "is a URL; give its host: tsec reachability localhost"),
            ("localhost:8443", "has a port; reachability is about the host: tsec reachability localhost"),
            ("local host", "is not a host name or an IP address"),
        ] {
            let refused = await tsec(["reachability", argument])
            #expect(refused.status == 2)
            #expect(refused.output.stderr.contains(hint), "\(refused.output.stderr)")
        }
        #expect(await tsec(["reachability", "::1"]).status == 0, "an IPv6 literal's colons are not a port")

        let missing = await tsec(["reachability", "--netns", "tsec-no-such-namespace"])
        #expect(missing.status == 2)
        #expect(missing.output.stderr.contains("/run/netns/tsec-no-such-namespace"))
    }

    @Test("inside a namespace (ip netns exec): notReachable, then reachable via ethernet once routed",
          .enabled(if: NamespacePair.isAvailable, "needs root to create network namespaces"))
    func insideNamespace() throws {
        // The test runner lives in the build folder, beside the tsec it built.
        let binary = Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("tsec").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "the tsec binary beside the tests: \(binary)")
        let pair = try NamespacePair()
        let command = "ip netns exec \(pair.monitored) \(binary) reachability --json; echo \"exit $?\""
        #expect(try shell(command) == #"{"status":"notReachable"}"# + "\nexit 1\n")
        try pair.connect()
        try pair.ip("route add default via \(NamespacePair.peerAddress)")
        #expect(try shell(command) == #"{"interface":"va","status":"reachable","via":"ethernet"}"# + "\nexit 0\n")
    }

    @Test("--watch prints a timestamped line per change until interrupted",
          .enabled(if: NamespacePair.isAvailable, "needs root to create network namespaces"))
    func watch() async throws {
        let pair = try NamespacePair()
        try pair.connect()
        let output = CommandOutput.capturing()
        let watching = Task { await TSec.run(arguments: ["reachability", "--watch", "--netns", pair.monitored], output: output) }
        #expect(try await lines(of: output, count: 1).last?.hasSuffix("  notReachable") == true)
        try pair.ip("route add default via \(NamespacePair.peerAddress)")
        let lines = try await lines(of: output, count: 2)
        #expect(lines.last?.hasSuffix("  reachable via ethernet (va)") == true)
        for line in lines {
            #expect(line.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  .+/) != nil, "\(line)")
        }
        watching.cancel()  // as Ctrl-C would
        #expect(await watching.value == 0)
    }

    /// Waits (up to 5 s) until `output` has `count` lines.
    private func lines(of output: CommandOutput, count: Int) async throws -> [String] {
        for _ in 0..<500 {
            let lines = output.stdout.split(separator: "\n").map(String.init)
            if lines.count >= count { return lines }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("fewer than \(count) lines: \(output.stdout) \(output.stderr)")
        throw CancellationError()
    }
}
