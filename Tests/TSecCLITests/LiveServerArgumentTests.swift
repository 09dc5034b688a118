import Foundation
import LabServers
import PKIBuilder
@testable import TSecCLI
import TestServers
import Testing
import TransportSecurity

/// `tsec pin` on a live server (HOST:PORT or an https:// URL), `--pin-sha256` for `tsec evaluate`,
/// `--version` and when colour is written.
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

        #expect(result.output.stderr.contains("not judged"), "a note says the pins prove nothing: \(result.output.stderr)")

        let closed = await tsec(["pin", files.path("root.pem"), "127.0.0.1:1"])
        #expect(closed.status == 3)
        #expect(closed.output.stdout.hasPrefix(files.lab.root.der.spkiPin.description), "the file's pin still printed")
        #expect(closed.output.stderr.contains("127.0.0.1:1"), "\(closed.output.stderr)")
        let missing = await tsec(["pin", "/no/such/file.pem"])
        #expect(missing.status == 2)
    }

    @Test("tsec evaluate --pin-sha256: alone it decides after validation; a pin the chain lacks is rejected with the pins seen; bad usage exits 2")
    func evaluateWithSPKIPins() async {
        let rootPin = files.lab.root.der.spkiPin.description
        let trusted = await files.evaluate(.legitimate, ["--host", "api.example.test", "--pin-sha256", rootPin])
        #expect(trusted.status == 0, "\(trusted.output.stdout)\(trusted.output.stderr)")
        #expect(trusted.output.stdout == "trusted\n")
        // The intercepting proxy's chain validates to the (user-installed) system roots: only the pin stops it.
        let intercepted = await files.evaluate(.interceptingProxy, ["--host", "api.example.test", "--pin-sha256", rootPin])
        #expect(intercepted.status == 1)
        #expect(intercepted.output.stdout.hasPrefix("rejected: "), "\(intercepted.output.stdout)")
        #expect(intercepted.output.stdout.contains(rootPin), "the expected pin is shown: \(intercepted.output.stdout)")
        let withoutPin = await files.evaluate(.interceptingProxy, ["--host", "api.example.test"])
        #expect(withoutPin.status == 0, "system trust alone lets the proxy through, as documented")

        let chain = files.path("legitimate.pem")
        let cases: [([String], String)] = [
            (["evaluate", "--chain", chain, "--host", "api.example.test", "--pin-sha256", "sha256/short"], "--pin-sha256 'sha256/short'"),
            (["evaluate", "--chain", chain, "--host", "api.example.test", "--pin-sha256", rootPin, "--anchors", files.path("root.pem")], "--pin-sha256"),
            (["evaluate", "--chain", chain, "--pin-sha256", rootPin], "--host"),
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
