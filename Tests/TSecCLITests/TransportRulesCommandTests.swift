import Foundation
import PKIBuilder
import TSecCLI
import TestServers
import Testing
import TransportSecurity

/// Transport rules enforced by the session against real servers on 127.0.0.1, through
/// `tsec get --config`: each server is refused by default (exit 4) and allowed by exactly the
/// exception that relaxes what it lacks.
@Suite("Transport rules enforced: tsec get --config")
struct TransportRulesCommandTests {
    let files = try! LabFiles()
    var lab: TrustLab { files.lab }

    /// Writes `rules` as JSON and returns `--config FILE`.
    func config(_ rules: [String: Any]) throws -> [String] {
        let path = files.path("rules-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: rules).write(to: URL(fileURLWithPath: path))
        return ["--config", path]
    }

    /// `tsec get` of `https://HOST:PORT/PATH` connecting to 127.0.0.1, against the lab's store
    /// at the lab's time.
    func get(_ scheme: String, _ host: String, _ port: Int, _ path: String = "/", _ arguments: [String]) async -> (status: Int32, output: CommandOutput) {
        await tsec(["get", "\(scheme)://\(host):\(port)\(path)", "--resolve", "\(host):\(port):127.0.0.1",
                    "--system-roots", files.path("system.pem"), "--at", files.at, "--max-time", "10"] + arguments)
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = files.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `openssl s_server` presenting `leaf` (issued by the lab's intermediate) with `options`.
    func openSSLServer(_ leaf: IssuedCertificate, _ options: [String]) throws -> OpenSSLServer {
        let name = UUID().uuidString
        return try OpenSSLServer(
            certificateFile: write("\(name).pem", leaf.pemString),
            keyFile: write("\(name).key", leaf.privateKeyPEM),
            chainFile: write("\(name)-chain.pem", lab.intermediate.pemString),
            options: options
        )
    }

    @Test("cleartext: refused with the host and the key that would allow it; allowed by its exception; local hosts allowed")
    func cleartext() async throws {
        let server = try await HTTPTestServer(chain: nil)
        let refused = await get("http", "plain.example.test", server.port, "/hello", try config([:]))
        #expect(refused.status == 4)
        #expect(refused.output.stderr.contains("plain.example.test"))
        #expect(refused.output.stderr.contains("NSAppTransportSecurity.NSExceptionDomains.plain.example.test.NSExceptionAllowsInsecureHTTPLoads"))
        let exception = try config(["NSExceptionDomains": ["plain.example.test": ["NSExceptionAllowsInsecureHTTPLoads": true]]])
        let allowed = await get("http", "plain.example.test", server.port, "/hello", exception)
        #expect(allowed.status == 0, "\(allowed.output.stderr)")
        #expect(allowed.output.stdout == "hello")
        let local = await tsec(["get", "http://127.0.0.1:\(server.port)/hello"] + (try config([:])))
        #expect(local.status == 0)
        let localOff = await tsec(["get", "http://127.0.0.1:\(server.port)/hello"] + (try config(["NSAllowsLocalNetworking": false])))
        #expect(localOff.status == 4)
        await server.stop()
    }

    @Test("a server limited to TLS 1.1: refused by default, allowed with NSExceptionMinimumTLSVersion TLSv1.1")
    func minimumTLSVersion() async throws {
        let leaf = try lab.pki.issue(.server("legacy.example.test"), by: lab.intermediate)
        let server = try openSSLServer(leaf, ["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"])
        defer { server.stop() }
        let refused = await get("https", "legacy.example.test", server.port, "/", try config([:]))
        #expect(refused.status == 4, "\(refused.output.stderr)")
        #expect(refused.output.stderr.contains("TLS ≥ 1.2"))
        let tooHigh = await get("https", "legacy.example.test", server.port, "/", try config(["NSExceptionDomains": ["legacy.example.test": ["NSExceptionMinimumTLSVersion": "TLSv1.2"]]]))
        #expect(tooHigh.status == 4)
        let allowed = await get("https", "legacy.example.test", server.port, "/", try config(["NSExceptionDomains": ["legacy.example.test": ["NSExceptionMinimumTLSVersion": "TLSv1.1"]]]))
        #expect(allowed.status == 0, "\(allowed.output.stderr)")
    }

    @Test("a server offering only a non-forward-secret suite: refused by default, allowed with NSExceptionRequiresForwardSecrecy = false")
    func forwardSecrecy() async throws {
        let leaf = try lab.pki.issue(.server("nofs.example.test"), by: lab.intermediate, algorithm: .rsa2048)
        let server = try openSSLServer(leaf, ["-tls1_2", "-cipher", "AES128-GCM-SHA256"])
        defer { server.stop() }
        let refused = await get("https", "nofs.example.test", server.port, "/", try config([:]))
        #expect(refused.status == 4, "\(refused.output.stderr)")
        #expect(refused.output.stderr.contains("forward-secret"))
        let allowed = await get("https", "nofs.example.test", server.port, "/", try config(["NSExceptionDomains": ["nofs.example.test": ["NSExceptionRequiresForwardSecrecy": false]]]))
        #expect(allowed.status == 0, "\(allowed.output.stderr)")
    }

    @Test("a SHA-1-signed chain: refused (exit 1, the reason names the certificate and SHA-1) by the engine itself, whatever the rules: arbitrary loads do not let it through")
    func sha1Chain() async throws {
        let (root, leaf) = try lab.sha1SignedServer("sha1.example.test")
        let roots = try write("sha1-roots.pem", [root].pemBundle)
        let server = try await HTTPTestServer(chain: [leaf])
        for rules in [[:], ["NSAllowsArbitraryLoads": true]] as [[String: Any]] {
            let refused = await get("https", "sha1.example.test", server.port, "/hello", try config(rules) + ["--system-roots", roots])
            #expect(refused.status == 1, "\(rules): \(refused.output.stderr)")
            #expect(refused.output.stderr.contains("CN=sha1.example.test: is signed with SHA-1 (sha1WithRSAEncryption), which is refused"), "\(refused.output.stderr)")
        }
        #expect(await get("https", "sha1.example.test", server.port, "/hello", ["--system-roots", roots]).status == 1, "without rules too")
        await server.stop()
    }

    @Test("NSPinnedDomains through the session: the root pinned as a CA identity passes, the proxy does not")
    func pinnedDomains() async throws {
        let pins = try config(["NSPinnedDomains": [lab.host: ["NSPinnedCAIdentities": [["SPKI-SHA256-BASE64": String(lab.root.der.spkiPin.description.dropFirst(7))]]]]])
        let legitimate = try await HTTPTestServer(chain: lab.chain(.legitimate))
        let proxy = try await HTTPTestServer(chain: lab.chain(.interceptingProxy))
        #expect(await get("https", lab.host, legitimate.port, "/hello", pins).status == 0)
        let intercepted = await get("https", lab.host, proxy.port, "/hello", pins)
        #expect(intercepted.status == 4)
        #expect(intercepted.output.stderr.contains("NSPinnedCAIdentities"))
        // Without the rules the user-installed proxy root is trusted.
        #expect(await get("https", lab.host, proxy.port, "/hello", []).status == 0)
        await legitimate.stop()
        await proxy.stop()
    }

    @Test("a configuration that cannot be read exits 2; its issues go to stderr")
    func badConfiguration() async throws {
        let garbage = try write("garbage.plist", "<plist><dict><key>")
        #expect(await tsec(["get", "https://example.test/", "--config", garbage]).status == 2)
        let server = try await HTTPTestServer(chain: nil)
        let warned = await tsec(["get", "http://127.0.0.1:\(server.port)/hello"] + (try config(["NSAllowsArbitraryLoads": "YES"])))
        #expect(warned.status == 0)
        #expect(warned.output.stderr.contains("error: NSAllowsArbitraryLoads: must be a boolean"))
        await server.stop()
    }

    /// `tsec ats-diagnose` of `scheme://host:port/` connecting to 127.0.0.1 with the lab's roots.
    func diagnose(_ scheme: String, _ host: String, _ port: Int, _ more: [String] = []) async -> (status: Int32, output: CommandOutput) {
        await tsec(["ats-diagnose", "\(scheme)://\(host):\(port)/", "--resolve", "\(host):\(port):127.0.0.1",
                    "--system-roots", files.path("system.pem"), "--max-time", "5"] + more)
    }

    @Test("ats-diagnose names the narrowest exception: TLS 1.1, forward secrecy off, cleartext; passes a sound server; finds nothing for an untrusted one")
    func atsDiagnose() async throws {
        // The servers present certificates valid now (openssl and tsec judge at the real time).
        let today = try TrustLab(pki: PKI(now: Date()))
        let roots = try write("today-roots.pem", today.systemRoots.pemBundle)
        func server(_ host: String, _ algorithm: KeyAlgorithm = .p256, _ options: [String]) throws -> OpenSSLServer {
            let leaf = try today.pki.issue(.server(host), by: today.intermediate, algorithm: algorithm)
            let name = UUID().uuidString
            return try OpenSSLServer(certificateFile: write("\(name).pem", leaf.pemString), keyFile: write("\(name).key", leaf.privateKeyPEM),
                                     chainFile: write("\(name)-chain.pem", today.intermediate.pemString), options: options)
        }
        let legacy = try server("legacy.example.test", .p256, ["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"])
        defer { legacy.stop() }
        let result = await diagnose("https", "legacy.example.test", legacy.port, ["--system-roots", roots, "--verbose"])
        #expect(result.status == 1, "\(result.output.stdout)")
        #expect(result.output.stdout.contains("Narrowest exception that works: TLS exception for legacy.example.test: TLSv1.1: {\"NSExceptionDomains\":{\"legacy.example.test\":{\"NSExceptionMinimumTLSVersion\":\"TLSv1.1\"}}}"))
        #expect(result.output.stdout.contains("Error : refused by the transport rules"))

        let noPFS = try server("nofs.example.test", .rsa2048, ["-tls1_2", "-cipher", "AES128-GCM-SHA256"])
        defer { noPFS.stop() }
        let json = await diagnose("https", "nofs.example.test", noPFS.port, ["--system-roots", roots, "--json"])
        #expect(json.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.stdout.utf8)) as? [String: Any])
        #expect((report["narrowest"] as? String)?.hasPrefix("PFS exception for nofs.example.test: forward secrecy disabled:") == true)
        let attempts = try #require(report["attempts"] as? [[String: Any]])
        #expect(attempts.first?["result"] as? String == "FAIL")
        #expect(attempts.contains { $0["name"] as? String == "Allowing arbitrary loads" && $0["result"] as? String == "PASS" })

        let sound = try server("sound.example.test", .p256, [])
        defer { sound.stop() }
        let passing = await diagnose("https", "sound.example.test", sound.port, ["--system-roots", roots])
        #expect(passing.status == 0)
        #expect(passing.output.stdout.contains("The default rules pass"))
        // Under the other lab's roots (another CA) the server is not trusted, whatever the rules.
        let untrusted = await diagnose("https", "sound.example.test", sound.port)
        #expect(untrusted.status == 3)
        #expect(untrusted.output.stdout.contains("Nothing passes"))

        let plain = try await HTTPTestServer(chain: nil)
        let cleartext = await diagnose("http", "plain.example.test", plain.port)
        #expect(cleartext.status == 1)
        #expect(cleartext.output.stdout.contains("Narrowest exception that works: Insecure HTTP exception for plain.example.test: cleartext allowed"))
        await plain.stop()
    }

    @Test("ats-diagnose --config reads the file as the rules do: JSON after white space, TrustKit's pins in TSKConfiguration; its issues go to stderr")
    func atsDiagnoseConfiguration() async throws {
        let today = try TrustLab(pki: PKI(now: Date()))
        let roots = try write("today-roots-\(UUID().uuidString).pem", today.systemRoots.pemBundle)
        let host = "pinned.example.test"
        let server = try await HTTPTestServer(chain: [try today.pki.issue(.server(host), by: today.intermediate), today.intermediate])

        let json = try write("rules-\(UUID().uuidString).json", "\n  {\"NSAllowsArbitraryLoads\": 1}")
        let fromJSON = await diagnose("https", host, server.port, ["--system-roots", roots, "--config", json])
        #expect(fromJSON.status == 0, "\(fromJSON.output.stderr)")
        #expect(fromJSON.output.stderr.contains("NSAllowsArbitraryLoads: must be a boolean"))

        func infoPlist(pins: [String]) throws -> String {
            let info: [String: Any] = [
                "CFBundleIdentifier": "com.example.app",
                "NSAppTransportSecurity": ["NSAllowsLocalNetworking": true],
                "TSKConfiguration": ["TSKPinnedDomains": [host: ["TSKPublicKeyHashes": pins]]],
            ]
            let path = files.path("Info-\(UUID().uuidString).plist")
            try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
            return path
        }
        let otherPins = [UInt8(0xA1), 0xB2].map { "sha256/" + Data(repeating: $0, count: 32).base64EncodedString() }
        let mispinned = await diagnose("https", host, server.port, ["--system-roots", roots, "--config", try infoPlist(pins: otherPins), "--verbose"])
        #expect(mispinned.status == 3, "the pins apply to every attempt: \(mispinned.output.stdout)")
        #expect(mispinned.output.stdout.contains("pin set for \(host)"))
        #expect(mispinned.output.stdout.contains("or pins that every attempt keeps (NSPinnedDomains, TSKPinnedDomains) refuse it"))
        let pinned = await diagnose("https", host, server.port, ["--system-roots", roots, "--config", try infoPlist(pins: [today.intermediate.der.spkiPin.description, otherPins[0]])])
        #expect(pinned.status == 0, "\(pinned.output.stdout)")
        await server.stop()
    }
}

extension TransportRulesCommandTests {
    @Test("ats-diagnose refuses a URL or --resolve host no connection could be made to, before any attempt (a percent-decoded NUL would have reached localhost)")
    func atsDiagnoseHostSyntax() async {
        let nul = await tsec(["ats-diagnose", "https://localhost%00.example.test/"])
        #expect(nul.status == 2)
        #expect(nul.output.stdout.isEmpty, "no attempt is made")
        #expect(nul.output.stderr.contains("Error: 'https://localhost%00.example.test/': its host has the character U+0000, which no host name has\n"), "\(nul.output.stderr)")
        let resolve = await tsec(["ats-diagnose", "https://api.example.test/", "--resolve", "api example.test:443:127.0.0.1"])
        #expect(resolve.status == 2)
        #expect(resolve.output.stderr.contains("Error: --resolve 'api example.test:443:127.0.0.1': its host has the character ' ', which no host name has\n"))
    }
}
