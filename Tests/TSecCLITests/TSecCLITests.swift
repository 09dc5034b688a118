import ArgumentParser
import Foundation
import PKIBuilder
import TSecCLI
import TestServers
import Testing
import TransportSecurity

/// A lab written to files, as a user of `tsec` would have it.
final class LabFiles: @unchecked Sendable {
    let directory: String
    let lab: TrustLab

    init() throws {
        lab = try TrustLab()
        directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("tsec-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for server in TrustLab.Server.allCases {
            try write("\(server.rawValue).pem", lab.chain(server).pemBundle)
        }
        try write("system.pem", lab.systemRoots.pemBundle)
        try write("root.pem", lab.root.pemString)
        try write("leaf.pem", lab.leaf.pemString)
        try write("self.pem", lab.selfSigned.pemString)
        try Data(lab.leaf.derBytes).write(to: URL(fileURLWithPath: path("leaf.der")))
        try write("garbage.pem", garbagePEMBlock("CERTIFICATE"))
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    /// Writes `text` to the file `name` of the folder and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    var at: String { lab.pki.now.formatted(.iso8601) }

    /// `tsec evaluate` against the lab's system store at the lab's time, plus `arguments`.
    func evaluate(_ server: TrustLab.Server, _ arguments: [String]) async -> (status: Int32, output: CommandOutput) {
        await tsec(["evaluate", "--chain", path("\(server.rawValue).pem"), "--system-roots", path("system.pem"), "--at", at] + arguments)
    }
}

func tsec(_ arguments: [String], errorIsTerminal: Bool = false) async -> (status: Int32, output: CommandOutput) {
    let output = CommandOutput.capturing(errorIsTerminal: errorIsTerminal)
    let status = await TSec.run(arguments: arguments, output: output)
    return (status, output)
}

@Suite("tsec pin and tsec evaluate")
struct TSecCLITests {
    let files = try! LabFiles()

    @Test("pin prints one line per certificate: sha256/<base64>  <subject>")
    func pin() async {
        let result = await tsec(["pin", files.path("legitimate.pem"), files.path("leaf.der")])
        #expect(result.status == 0)
        let lab = files.lab
        #expect(
            result.output.stdout == """
                \(lab.leaf.der.spkiPin)  CN=api.example.test
                \(lab.intermediate.der.spkiPin)  CN=TransportSecurity Lab Issuing CA
                \(lab.leaf.der.spkiPin)  CN=api.example.test

                """
        )
    }

    @Test("pin of a PKCS#7 bundle (.p7b, as Windows exports a chain): one line per certificate it holds")
    func pinOfPKCS7Bundle() async throws {
        let bundle = files.path("legitimate-\(UUID().uuidString).p7b")
        _ = try shell("openssl crl2pkcs7 -nocrl -certfile \(files.path("legitimate.pem")) -outform DER -out \(bundle)")
        let result = await tsec(["pin", bundle])
        #expect(result.status == 0, "\(result.output.stderr)")
        let lab = files.lab
        #expect(result.output.stdout == "\(lab.leaf.der.spkiPin)  CN=api.example.test\n\(lab.intermediate.der.spkiPin)  CN=TransportSecurity Lab Issuing CA\n")
    }

    @Test("pin of a key without a certificate: the backup pin of a private key kept offline, or of its public key")
    func pinOfKeys() async throws {
        let backup = try KeyPair(generating: .p256)
        let privateFile = try files.write("backup.key", try backup.privateKey.serializeAsPEM().pemString)
        let publicFile = try files.write("backup.pub", try backup.publicKey.serializeAsPEM().pemString)
        let expected = SPKIPin(subjectPublicKeyInfoDER: backup.publicKey.subjectPublicKeyInfoDER)
        let result = await tsec(["pin", privateFile, publicFile])
        #expect(result.status == 0, "\(result.output.stderr)")
        #expect(result.output.stdout == "\(expected)  private key \(privateFile)\n\(expected)  public key \(publicFile)\n")
        let nothing = try files.write("params.pem", garbagePEMBlock("DH PARAMETERS"))
        let refused = await tsec(["pin", nothing])
        #expect(refused.status == 2)
        #expect(refused.output.stderr == "tsec pin: \(nothing) contains no certificate, public key, private key or certificate request\n")
    }

    @Test("pin reports unreadable files on stderr with status 2")
    func pinErrors() async {
        let result = await tsec(["pin", files.path("garbage.pem"), files.path("missing.pem")])
        #expect(result.status == 2)
        #expect(result.output.stderr.contains("garbage.pem"))
        #expect(result.output.stderr.contains("missing.pem cannot be read: no such file"))
    }

    @Test("evaluate: trusted exits 0, rejected exits 1 with the reason")
    func evaluateDefault() async {
        let trusted = await files.evaluate(.legitimate, ["--host", "api.example.test"])
        #expect(trusted.status == 0)
        #expect(trusted.output.stdout == "trusted\n")
        let rejected = await files.evaluate(.wrongHost, ["--host", "api.example.test"])
        #expect(rejected.status == 1)
        #expect(rejected.output.stdout.hasPrefix("rejected: "))
        #expect(rejected.output.stdout.contains("not for api.example.test"))
    }

    @Test("evaluate with pins prints the presented and expected pins on a mismatch")
    func evaluatePins() async {
        let result = await files.evaluate(.interceptingProxy, ["--host", "api.example.test", "--mode", "public-key", "--pin", files.path("root.pem")])
        #expect(result.status == 1)
        #expect(result.output.stdout.contains("Public-key pinning failure!"))
        #expect(result.output.stdout.contains(files.lab.root.der.spkiPin.description))
        let accepted = await files.evaluate(.legitimate, ["--host", "api.example.test", "--mode", "certificate", "--pin", files.path("root.pem")])
        #expect(accepted.status == 0)
    }

    @Test("evaluate: allow-invalid and no-domain-validation flags reach the policy")
    func evaluateFlags() async {
        let selfSigned = await files.evaluate(
            .selfSigned,
            ["--host", "api.example.test", "--mode", "certificate", "--pin", files.path("self.pem"), "--allow-invalid-certificates"]
        )
        #expect(selfSigned.status == 0)
        let rule1 = await files.evaluate(.legitimate, ["--host", "api.example.test", "--allow-invalid-certificates"])
        #expect(rule1.status == 1)
        #expect(rule1.output.stdout.contains("rule 1"))
        let anyHost = await files.evaluate(.wrongHost, ["--host", "api.example.test", "--no-domain-validation"])
        #expect(anyHost.status == 0)
    }

    @Test("evaluate --anchors: raw trust against the anchors only, or with the system store")
    func evaluateAnchors() async {
        let onlyAnchors = await files.evaluate(.selfSigned, ["--host", "api.example.test", "--anchors", files.path("self.pem")])
        #expect(onlyAnchors.status == 0)
        let legitimateOnlySelf = await files.evaluate(.legitimate, ["--host", "api.example.test", "--anchors", files.path("self.pem")])
        #expect(legitimateOnlySelf.status == 1)
        let withSystem = await files.evaluate(.legitimate, ["--host", "api.example.test", "--anchors", files.path("self.pem"), "--no-anchors-only"])
        #expect(withSystem.status == 0)
    }

    @Test("evaluate --at moves the evaluation time")
    func evaluateAt() async {
        let later = files.lab.pki.now.addingTimeInterval(200 * PKI.day).formatted(.iso8601)
        let result = await tsec([
            "evaluate", "--chain", files.path("legitimate.pem"), "--system-roots", files.path("system.pem"), "--at", later, "--host", "api.example.test",
        ])
        #expect(result.status == 1)
        #expect(result.output.stdout.contains("expired"))
    }

    @Test("evaluate --json prints the whole decision")
    func evaluateJSON() async throws {
        let result = await files.evaluate(.expired, ["--host", "api.example.test", "--json"])
        #expect(result.status == 1)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.stdout.utf8)) as? [String: Any])
        #expect(json["trusted"] as? Bool == false)
        #expect(json["rule"] as? Int == 3)
        let checks = try #require(json["checks"] as? [[String: Any]])
        let evaluation = try #require(checks.first?["evaluation"] as? [String: Any])
        #expect(evaluation["outcome"] as? String == "recoverableFailure")
        let failures = try #require(evaluation["failures"] as? [[String: Any]])
        #expect(failures.first?["code"] as? String == "expired")
    }

    @Test(
        "usage errors and unreadable input exit 2",
        arguments: [
            ["evaluate"],
            ["evaluate", "--chain", "/nonexistent.pem"],
            ["evaluate", "--chain", "/nonexistent.pem", "--mode", "certificate"],
            ["evaluate", "--chain", "/nonexistent.pem", "--at", "yesterday"],
            ["evaluate", "--chain", "/nonexistent.pem", "--anchors", "/a.pem", "--mode", "public-key", "--pin", "/p.pem"],
            ["evaluate", "--chain", "/nonexistent.pem", "--mode", "sideways"],
            ["frobnicate"],
            ["pin"],
            ["get", "https://127.0.0.1:1/", "-H", "NoColon"],
            ["get", "https://127.0.0.1:1/", "-F", "no-equals-sign"],
            ["limbo", "/nonexistent.json", "--case-budget", "0"],
            ["ats-diagnose", "ftp://example.com/"],
        ]
    )
    func usage(arguments: [String]) async {
        let result = await tsec(arguments)
        #expect(result.status == 2)
        #expect(!result.output.stderr.isEmpty)
    }

    @Test("an empty --host is a usage error, not 'no hostname check'")
    func emptyHost() async {
        for empty in ["", " "] {
            let result = await files.evaluate(.legitimate, ["--host", empty])
            #expect(result.status == 2)
            #expect(result.output.stderr.contains("--host is empty"))
        }
    }

    @Test("a --host no connection could be made to is a usage error saying why, not a rejection that hides the typing mistake")
    func malformedHost() async {
        for (host, problem) in [
            ("api example.test", "has the character ' ', which no host name has"),
            ("*.example.test", "has the character '*', which no host name has"),
            ("api.example.test\u{0}.other", "has the character U+0000, which no host name has"),
            ("bücher.example", "is not ASCII: write the name in its ASCII form (IDNA, xn--…), as hosts are looked up: xn--bcher-kva.example"),
        ] {
            let result = await files.evaluate(.legitimate, ["--host", host])
            #expect(result.status == 2)
            #expect(result.output.stderr.contains("Error: --host \(problem)\n"), "\(result.output.stderr)")
        }
        // Addresses, with their zone too, and names with a trailing dot or capitals are hosts.
        for host in ["127.0.0.1", "::1", "fe80::1%eth0", "API.example.test."] {
            #expect(await files.evaluate(.legitimate, ["--host", host]).status != 2, "\(host)")
        }
    }

    @Test("a chain file listing the issuer before the leaf gets a note saying so; a rejection for another reason does not")
    func chainOrderNote() async throws {
        let lab = files.lab
        let reversed = try files.write("reversed.pem", [lab.intermediate, lab.leaf].pemBundle)
        let result = await tsec(["evaluate", "--chain", reversed, "--system-roots", files.path("system.pem"), "--at", files.at, "--host", "api.example.test"])
        #expect(result.status == 1)
        #expect(
            result.output.stderr == "note: \(reversed) lists \(lab.intermediate.der.subjectSummary), a CA certificate, first; the server's certificate "
                + "(\(lab.leaf.der.subjectSummary), certificate #2) must come first, then the certificates that issued it\n"
        )
        let wrongHost = await files.evaluate(.wrongHost, ["--host", "api.example.test"])
        #expect(wrongHost.status == 1)
        #expect(wrongHost.output.stderr.isEmpty)
    }

    @Test("garbage chain input is named on stderr")
    func garbageChain() async {
        let result = await tsec(["evaluate", "--chain", files.path("garbage.pem")])
        #expect(result.status == 2)
        #expect(result.output.stderr.contains("garbage.pem"))
    }

    @Test("help exits 0")
    func help() async {
        let result = await tsec(["--help"])
        #expect(result.status == 0)
        #expect(result.output.stdout.contains("evaluate"))
    }

    @Test(
        "a subcommand's help is that subcommand's, however it is asked for",
        arguments: [["evaluate", "--help"], ["help", "evaluate"], ["evaluate", "-h"]]
    )
    func subcommandHelp(arguments: [String]) async {
        let result = await tsec(arguments)
        #expect(result.status == 0)
        #expect(result.output.stdout.contains("USAGE: tsec evaluate [<options>] [<server>]"))
        #expect(result.output.stdout.contains("--allow-invalid-certificates"))
    }

    @Test("a nested subcommand's help is its own")
    func nestedSubcommandHelp() async {
        let result = await tsec(["pins", "sign", "--help"])
        #expect(result.status == 0)
        #expect(result.output.stdout.contains("USAGE: tsec pins sign"))
    }

    /// Every subcommand, nested ones too, with its path (`pins sign`).
    static func allCommands(under command: any ParsableCommand.Type = TSec.self, path: [String] = []) -> [(path: String, type: any ParsableCommand.Type)] {
        command.configuration.subcommands.flatMap { subcommand in
            let subpath = path + [subcommand.configuration.commandName ?? "?"]
            return [(subpath.joined(separator: " "), subcommand)] + allCommands(under: subcommand, path: subpath)
        }
    }

    @Test("every command's discussion is written in paragraphs, so the help wraps it evenly (a line break inside a paragraph left ragged half-lines)")
    func discussionsAreParagraphs() {
        let commands = Self.allCommands()
        #expect(commands.count >= 16)
        for (path, command) in commands {
            for paragraph in command.configuration.discussion.components(separatedBy: "\n\n") {
                let body = paragraph.trimmingCharacters(in: .newlines)
                #expect(!body.contains("\n"), "tsec \(path): a line break inside the paragraph \(body.debugDescription)")
            }
        }
    }

    @Test("tsec alone prints the list of subcommands")
    func rootAlone() async {
        let result = await tsec([])
        #expect(result.status == 0)
        #expect(result.output.stdout.contains("SUBCOMMANDS:"))
    }
}
