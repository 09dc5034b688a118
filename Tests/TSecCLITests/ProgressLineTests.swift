import Foundation
import LabServers
import PKIBuilder
@testable import TSecCLI
import TestServers
import Testing

/// Progress of long work on stderr: only on a terminal, rewritten in place, erased at the end.
@Suite("progress on stderr")
struct ProgressLineTests {
    let files = try! LabFiles()

    @Test("drawn only on a terminal, at most once an interval unless forced, padded over a longer line, erased once")
    func line() {
        let file = CommandOutput.capturing()
        let quiet = ProgressLine(output: file)
        quiet.show("1/2")
        quiet.finish()
        #expect(file.stderr.isEmpty, "nothing reaches a file or a pipe")

        let terminal = CommandOutput.capturing(errorIsTerminal: true)
        let progress = ProgressLine(output: terminal, interval: .seconds(3600))
        progress.show("first line")
        progress.show("dropped")
        progress.show("two\u{1B}[2J", force: true)
        progress.finish()
        progress.finish()
        #expect(terminal.stderr == "\rfirst line" + "\rtwo\\u{1B}[2J" + "\r" + String(repeating: " ", count: 12) + "\r")
    }

    @Test("tsec limbo on a terminal counts the cases on stderr and leaves stdout as it is")
    func limbo() async throws {
        let suite = LimboCommandTests()
        let path = try suite.write([
            suite.testcase("webpki::good", chain: suite.lab.chain(.legitimate), host: suite.lab.host, expected: "SUCCESS"),
            suite.testcase("webpki::expired", chain: suite.lab.chain(.expired), host: suite.lab.host, expected: "FAILURE"),
        ])
        let shown = await tsec(["limbo", path], errorIsTerminal: true)
        let plain = await tsec(["limbo", path])
        #expect(shown.status == 0 && plain.status == 0)
        #expect(shown.output.stderr.hasPrefix("\rtsec limbo: 1/2 webpki::good"), "\(shown.output.stderr.debugDescription)")
        #expect(shown.output.stderr.hasSuffix(" \r"), "the line is erased")
        #expect(plain.output.stderr.isEmpty)
        #expect(shown.output.stdout.hasSuffix("2 passed, 0 failed, 0 skipped\n"))
    }

    @Test("tsec get -o on a terminal shows the bytes received of those announced")
    func download() async throws {
        let server = try await HTTPTestServer(chain: files.lab.loopbackChain())
        defer { Task { await server.stop() } }
        let file = files.path("progress-\(UUID().uuidString)")
        let arguments = ["get", server.url("/bytes/100000").absoluteString, "--system-roots", files.path("system.pem"), "--at", files.at, "-o", file]
        let shown = await tsec(arguments, errorIsTerminal: true)
        #expect(shown.status == 0, "\(shown.output.stderr)")
        #expect(shown.output.stderr.hasPrefix("\rtsec get: "), "\(shown.output.stderr.debugDescription)")
        #expect(shown.output.stderr.contains(" of 100 KB") && shown.output.stderr.contains((file as NSString).lastPathComponent))
        #expect(shown.output.stderr.hasSuffix(" \r"))
        let plain = await tsec(arguments)
        #expect(plain.status == 0 && plain.output.stderr.isEmpty)
    }

    @Test("tsec ats-diagnose on a terminal names each attempt as it is made")
    func atsDiagnose() async throws {
        // ats-diagnose judges at the real time: a chain valid now.
        let today = try TrustLab(pki: PKI(now: Date()))
        let roots = try files.write("progress-roots.pem", today.systemRoots.pemBundle)
        let server = try await LabHTTPSServer.start(chain: today.chain(.legitimate), page: "hi")
        defer { Task { await server.stop() } }
        let result = await tsec(
            ["ats-diagnose", "https://\(today.host):\(server.port)/", "--resolve", "\(today.host):\(server.port):127.0.0.1", "--system-roots", roots, "--max-time", "5"],
            errorIsTerminal: true
        )
        #expect(result.status == 0, "\(result.output.stdout)\(result.output.stderr)")
        #expect(result.output.stderr.hasPrefix("\rtsec ats-diagnose: 1/"), "\(result.output.stderr.debugDescription)")
        #expect(result.output.stderr.hasSuffix(" \r"))
        #expect(result.output.stdout.contains("The default rules pass"))
    }
}
