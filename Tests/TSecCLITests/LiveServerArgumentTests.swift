import Foundation
import LabServers
import NIOSSL
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

    @Test("tsec evaluate HOST:PORT judges a whole handshake: the genuine server is trusted; a replayed genuine chain whose key the server lacks, an intercepting proxy under a pin, an appended genuine chain and an unnamed host are rejected; an unreachable server exits 3")
    func evaluateLiveServer() async throws {
        let lab = files.lab
        let trustedArguments = ["--system-roots", files.path("system.pem"), "--at", files.at]
        let rootPin = lab.root.der.spkiPin.description
        func judge(_ server: LabHTTPSServer, _ arguments: [String]) async -> (status: Int32, output: CommandOutput) {
            await tsec(["evaluate", "127.0.0.1:\(server.port)"] + trustedArguments + arguments)
        }

        let genuine = try await LabHTTPSServer.start(chain: lab.chain(.legitimate), page: "hi")
        defer { Task { await genuine.stop() } }
        let trusted = await judge(genuine, ["--host", lab.host, "--pin-sha256", rootPin])
        #expect(trusted.status == 0, "\(trusted.output.stdout)\(trusted.output.stderr)")
        #expect(trusted.output.stdout == "trusted\n")
        let anchored = await tsec(["evaluate", "https://127.0.0.1:\(genuine.port)/", "--host", lab.host, "--anchors", files.path("root.pem"), "--at", files.at])
        #expect(anchored.status == 0, "\(anchored.output.stdout)\(anchored.output.stderr)")
        // The address is the host checked when no --host is given: the certificate does not name it.
        let byAddress = await judge(genuine, [])
        #expect(byAddress.status == 1)
        #expect(byAddress.output.stdout.contains("127.0.0.1"), "\(byAddress.output.stdout)")

        // The attacker has the genuine chain (it is public) but not its key: the handshake is
        // signed with the attacker's own key of the same kind. The chain alone would pass.
        let attackerKey = try SoftwareExternalKey(keyOf: lab.chain(.reissuedNewKey)[0])
        let replayed = TLSConfiguration.makeServerConfiguration(
            certificateChain: try lab.chain(.legitimate).map { .certificate(try NIOSSLCertificate(bytes: $0.derBytes, format: .der)) },
            privateKey: .privateKey(NIOSSLPrivateKey(customPrivateKey: attackerKey))
        )
        let replaying = try await LabHTTPSServer.start(configuration: replayed, page: "stolen")
        defer { Task { await replaying.stop() } }
        for arguments in [["--host", lab.host], ["--host", lab.host, "--pin-sha256", rootPin], ["--host", lab.host, "--json"]] {
            let result = await judge(replaying, arguments)
            #expect(result.status == 1, "\(arguments): \(result.output.stdout) \(result.output.stderr)")
            #expect(result.output.stdout.contains("proved it holds the leaf's key"), "\(arguments): \(result.output.stdout)")
            #expect(!result.output.stdout.hasPrefix("trusted"))
        }

        for (server, arguments) in [(TrustLab.Server.interceptingProxy, ["--pin-sha256", rootPin]), (.appendedGenuineChain, ["--pin-sha256", rootPin]), (.untrustedRoot, []), (.wrongHost, [])] {
            let attacker = try await LabHTTPSServer.start(chain: lab.chain(server), page: "attacker")
            let result = await judge(attacker, ["--host", lab.host] + arguments)
            await attacker.stop()
            #expect(result.status == 1, "\(server): \(result.output.stdout)\(result.output.stderr)")
            #expect(result.output.stdout.hasPrefix("rejected: "), "\(server): \(result.output.stdout)")
        }

        let unreachable = await tsec(["evaluate", "127.0.0.1:1", "--host", lab.host])
        #expect(unreachable.status == 3)
        #expect(unreachable.output.stderr.contains("127.0.0.1:1"), "\(unreachable.output.stderr)")
        for (arguments, words) in [(["evaluate"], "--chain FILE"), (["evaluate", "127.0.0.1:1", "--chain", files.path("legitimate.pem")], "not both"), (["evaluate", "127.0.0.1"], "no port")] {
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
