import Foundation
import LabServers
import PKIBuilder
@testable import TSecCLI
import TestServers
import Testing
import TransportSecurity

/// `tsec pin` and `tsec evaluate` on a live server (HOST:PORT or an https:// URL), `--pin-sha256`
/// for `tsec evaluate`, `--version` and when colour is written.
@Suite("tsec on live servers, --version and NO_COLOR")
struct LiveServerArgumentTests {
    let files = try! LabFiles()

    @Test("tsec pin HOST:PORT prints the pins of the chain the server presents; an unreachable server exits 3; a missing file that is no server exits 2")
    func pinOfAServer() async throws {
        let chain = files.lab.chain(.legitimate)
        let server = try await LabHTTPSServer.start(chain: chain, page: "hi")
        defer { Task { await server.stop() } }
        let result = await tsec(["pin", "127.0.0.1:\(server.port)", "https://127.0.0.1:\(server.port)/"])
        #expect(result.status == 0, "\(result.output.stderr)")
        let expected = chain.map { "\($0.der.spkiPin)  \($0.der.subjectSummary)" }
        #expect(result.output.stdout.split(separator: "\n").map(String.init) == expected + expected)

        let closed = await tsec(["pin", files.path("root.pem"), "127.0.0.1:1"])
        #expect(closed.status == 3)
        #expect(closed.output.stdout.hasPrefix(files.lab.root.der.spkiPin.description), "the file's pin still printed")
        #expect(closed.output.stderr.contains("127.0.0.1:1"), "\(closed.output.stderr)")
        let missing = await tsec(["pin", "/no/such/file.pem"])
        #expect(missing.status == 2)
    }

    @Test("tsec evaluate HOST:PORT fetches and judges the chain; --pin-sha256 alone decides after validation, a pin the chain lacks is rejected with the pins seen")
    func evaluateAServer() async throws {
        let legitimate = try await LabHTTPSServer.start(chain: files.lab.chain(.legitimate), page: "hi")
        let proxy = try await LabHTTPSServer.start(chain: files.lab.chain(.interceptingProxy), page: "hi")
        defer { Task { await legitimate.stop(); await proxy.stop() } }
        let common = ["--host", "api.example.test", "--system-roots", files.path("system.pem"), "--at", files.at]
        let rootPin = files.lab.root.der.spkiPin.description

        let trusted = await tsec(["evaluate", "127.0.0.1:\(legitimate.port)", "--pin-sha256", rootPin] + common)
        #expect(trusted.status == 0, "\(trusted.output.stdout)\(trusted.output.stderr)")
        #expect(trusted.output.stdout == "trusted\n")

        // The intercepting proxy's chain validates to the (user-installed) system roots: only the pin stops it.
        let intercepted = await tsec(["evaluate", "https://127.0.0.1:\(proxy.port)/", "--pin-sha256", rootPin] + common)
        #expect(intercepted.status == 1)
        #expect(intercepted.output.stdout.hasPrefix("rejected: "), "\(intercepted.output.stdout)")
        #expect(intercepted.output.stdout.contains(rootPin), "the expected pin is shown: \(intercepted.output.stdout)")
        let withoutPin = await tsec(["evaluate", "127.0.0.1:\(proxy.port)"] + common)
        #expect(withoutPin.status == 0, "system trust alone lets the proxy through, as documented")

        // The host defaults to the server's: the lab's leaf does not name 127.0.0.1.
        let byAddress = await tsec(["evaluate", "127.0.0.1:\(legitimate.port)", "--system-roots", files.path("system.pem"), "--at", files.at])
        #expect(byAddress.status == 1)
        #expect(byAddress.output.stdout.contains("127.0.0.1"), "\(byAddress.output.stdout)")

        let unreachable = await tsec(["evaluate", "127.0.0.1:1"] + common)
        #expect(unreachable.status == 3)
    }

    @Test("tsec evaluate refuses a chain given twice or not at all, a malformed pin, --pin-sha256 with --anchors or without a host")
    func evaluateUsage() async {
        let chain = files.path("legitimate.pem")
        let pin = files.lab.root.der.spkiPin.description
        let cases: [([String], String)] = [
            (["evaluate", "--host", "api.example.test"], "give the chain"),
            (["evaluate", "127.0.0.1:443", "--chain", chain], "not both"),
            (["evaluate", "--chain", chain, "--host", "api.example.test", "--pin-sha256", "sha256/short"], "--pin-sha256 'sha256/short'"),
            (["evaluate", "--chain", chain, "--host", "api.example.test", "--pin-sha256", pin, "--anchors", files.path("root.pem")], "--pin-sha256"),
            (["evaluate", "--chain", chain, "--pin-sha256", pin], "--host"),
            (["evaluate", "api.example.test"], "no port"),
        ]
        for (arguments, words) in cases {
            let result = await tsec(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.output.stderr.contains(words), "\(arguments): \(result.output.stderr)")
        }
    }

    @Test("tsec --version prints the version")
    func version() async {
        let result = await tsec(["--version"])
        #expect(result.status == 0)
        #expect(result.output.stdout == "\(TSec.version)\n")
        #expect(!TSec.version.isEmpty)
    }

    @Test("colour only on a terminal, never with NO_COLOR set to a value or a dumb terminal")
    func colour() {
        #expect(TerminalColor.allowed(isTerminal: true, environment: [:]))
        #expect(TerminalColor.allowed(isTerminal: true, environment: ["NO_COLOR": ""]))
        #expect(!TerminalColor.allowed(isTerminal: true, environment: ["NO_COLOR": "1"]))
        #expect(!TerminalColor.allowed(isTerminal: true, environment: ["TERM": "dumb"]))
        #expect(!TerminalColor.allowed(isTerminal: false, environment: [:]))
    }
}
