import Foundation
import TSecCLI
import TestServers
import Testing
import TransportSecurity

@Suite("tsec pins")
struct PinsCommandTests {
    static let pinA = SPKIPin(subjectPublicKeyInfoDER: Array("key A".utf8))
    static let pinB = SPKIPin(subjectPublicKeyInfoDER: Array("key B".utf8))

    /// A document valid from 2026-11-01 to 2027-02-01, with `domains` extra domains to make it large.
    static func document(version: Int, domains: Int = 0) -> String {
        let pins = "[\"\(pinA)\", \"\(pinB)\"]"
        var entries = ["\"api.example.com\": {\"includeSubdomains\": true, \"pins\": \(pins)}"]
        entries += (0..<domains).map { "\"host\($0).example.net\": {\"pins\": \(pins)}" }
        return "{\"version\": \(version), \"issuedAt\": \"2026-11-01T00:00:00Z\", \"expiresAt\": \"2027-02-01T00:00:00Z\", \"domains\": {\(entries.joined(separator: ", "))}}"
    }

    @Test("keygen writes NAME.key (0600) and NAME.pub; sign writes DOC.sig; verify says valid, or why not")
    func keygenSignVerify() async throws {
        let directory = try TemporaryFolder()
        let name = directory.path + "/publisher"
        let keygen = await tsec(["pins", "keygen", "--out", name, "--algorithm", "p256"])
        #expect(keygen.status == 0, "\(keygen.output.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: name + ".key")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try PinUpdatePublicKey(pemEncoded: String(contentsOfFile: name + ".pub", encoding: .utf8)).algorithm == .p256)

        let document = try directory.write("pins.json", Self.document(version: 7))
        let sign = await tsec(["pins", "sign", "--key", name + ".key", document])
        #expect(sign.status == 0, "\(sign.output.stderr)")
        #expect(sign.output.stderr.isEmpty, "two pins: no warning")
        #expect(FileManager.default.fileExists(atPath: document + ".sig"))

        let verify = await tsec(["pins", "verify", "--public-key", name + ".pub", document, "--at", "2026-12-01T00:00:00Z"])
        #expect(verify.status == 0, "\(verify.output.stderr)")
        #expect(verify.output.stdout.hasPrefix("valid: version 7, issued 2026-11-01T00:00:00Z, expires 2027-02-01T00:00:00Z\n  api.example.com (and subdomains): \(Self.pinA) \(Self.pinB)"))

        let expired = await tsec(["pins", "verify", "--public-key", name + ".pub", document, "--at", "2027-03-01T00:00:00Z"])
        #expect(expired.status == 1)
        #expect(expired.output.stderr.contains("expired"))

        try Self.document(version: 8).write(toFile: document, atomically: true, encoding: .utf8)
        let tampered = await tsec(["pins", "verify", "--public-key", name + ".pub", document, "--at", "2026-12-01T00:00:00Z"])
        #expect(tampered.status == 1)
        #expect(tampered.output.stderr.contains("does not verify"))

        let missing = await tsec(["pins", "verify", "--public-key", name + ".pub", directory.path + "/absent.json"])
        #expect(missing.status == 2)
        #expect(missing.output.stderr.contains("absent.json"))
    }

    @Test("sign refuses a domain with one distinct pin (no backup pin), which clients refuse: nothing is signed")
    func singlePinRefused() async throws {
        let directory = try TemporaryFolder()
        #expect(await tsec(["pins", "keygen", "--out", directory.path + "/k"]).status == 0)
        let document = try directory.write("pins.json", """
            {"version": 3, "issuedAt": "2026-11-01T00:00:00Z", "expiresAt": "2027-02-01T00:00:00Z",
             "domains": {"api.example.com": {"includeSubdomains": true, "pins": ["\(Self.pinA)", "\(Self.pinA)"]},
                         "www.example.com": {"pins": ["\(Self.pinA)", "\(Self.pinB)"]}}}
            """)
        let sign = await tsec(["pins", "sign", "--key", directory.path + "/k.key", document])
        #expect(sign.status == 2)
        #expect(!FileManager.default.fileExists(atPath: document + ".sig"))
        #expect(sign.output.stderr.contains("domains.api.example.com: 1 distinct pin; every domain needs at least 2 (a backup pin"), "\(sign.output.stderr)")
    }

    @Test("keygen refuses an unknown algorithm; sign refuses a malformed document and an unreadable key")
    func usageErrors() async throws {
        let directory = try TemporaryFolder()
        #expect(await tsec(["pins", "keygen", "--out", directory.path + "/k", "--algorithm", "rsa"]).status == 2)
        #expect(await tsec(["pins", "keygen", "--out", directory.path + "/k"]).status == 0)
        let malformed = try directory.write("bad.json", #"{"version": 0}"#)
        let sign = await tsec(["pins", "sign", "--key", directory.path + "/k.key", malformed])
        #expect(sign.status == 2)
        #expect(sign.output.stderr.contains("malformed"))
        #expect(!FileManager.default.fileExists(atPath: malformed + ".sig"))
        let good = try directory.write("good.json", Self.document(version: 1))
        let unreadable = await tsec(["pins", "sign", "--key", directory.path + "/k.pub", good])
        #expect(unreadable.status == 2)
        #expect(unreadable.output.stderr.contains("k.pub"))
        #expect(unreadable.output.stderr.contains("this is a public key; signing needs the private key"))
        let swapped = await tsec(["pins", "verify", "--public-key", directory.path + "/k.key", good])
        #expect(swapped.status == 2)
        #expect(swapped.output.stderr.contains("this is a private key; verifying needs the public key"))
        // Anything else: the parser's reason, without swift-asn1's source location.
        let certificateAsKey = try directory.write("cert.pem", garbagePEMBlock("CERTIFICATE"))
        let wrongKind = await tsec(["pins", "sign", "--key", certificateAsKey, good])
        #expect(wrongKind.status == 2)
        #expect(wrongKind.output.stderr.contains("not a PEM private key (ASN1Error."))
        #expect(!wrongKind.output.stderr.contains(".swift:"))
    }

    @Test("keygen never overwrites a key: existing NAME.key or NAME.pub is refused unless --force; a symbolic link is not followed")
    func keygenKeepsExistingKeys() async throws {
        let directory = try TemporaryFolder()
        let name = directory.path + "/publisher"
        #expect(await tsec(["pins", "keygen", "--out", name]).status == 0)
        let original = try String(contentsOfFile: name + ".key", encoding: .utf8)
        let again = await tsec(["pins", "keygen", "--out", name])
        #expect(again.status == 2)
        #expect(again.output.stderr.contains("publisher.key and \(name).pub already exist"))
        #expect(try String(contentsOfFile: name + ".key", encoding: .utf8) == original, "the signing key survives")

        let forced = await tsec(["pins", "keygen", "--out", name, "--force"])
        #expect(forced.status == 0, "\(forced.output.stderr)")
        #expect(try String(contentsOfFile: name + ".key", encoding: .utf8) != original)
        let mode = try FileManager.default.attributesOfItem(atPath: name + ".key")[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // Only the public half left behind: still refused, naming it.
        try FileManager.default.removeItem(atPath: name + ".key")
        let halfway = await tsec(["pins", "keygen", "--out", name])
        #expect(halfway.status == 2)
        #expect(halfway.output.stderr.contains("publisher.pub already exists"))

        // A dangling symbolic link where the key would go is not written through.
        let victim = directory.path + "/elsewhere"
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/linked.key", withDestinationPath: victim)
        #expect(await tsec(["pins", "keygen", "--out", directory.path + "/linked"]).status == 2)
        #expect(!FileManager.default.fileExists(atPath: victim))

        let nowhere = await tsec(["pins", "keygen", "--out", directory.path + "/no/such/folder/k"])
        #expect(nowhere.status == 2)
        #expect(nowhere.output.stderr.contains("No such file or directory"))
    }

    @Test("install accepts a newer document and refuses a rollback, leaving the store as it was")
    func install() async throws {
        let directory = try TemporaryFolder()
        let name = directory.path + "/publisher"
        _ = await tsec(["pins", "keygen", "--out", name])
        let store = directory.path + "/store"
        for version in [3, 2] {
            let document = try directory.write("v\(version).json", Self.document(version: version))
            _ = await tsec(["pins", "sign", "--key", name + ".key", document])
            let result = await tsec(["pins", "install", "--public-key", name + ".pub", "--store", store, document, "--at", "2026-12-01T00:00:00Z"])
            #expect(result.status == (version == 3 ? 0 : 1), "\(result.output.stderr)")
        }
        let registry = PinSetRegistry(publicKey: try PinUpdatePublicKey(pemEncoded: String(contentsOfFile: name + ".pub", encoding: .utf8)), store: PinUpdateStore(path: store))
        #expect(try registry.loadStored() == 3)
    }

    @Test("killing tsec pins install at any moment of a store write leaves the previous document or the new one, never a broken store",
          .timeLimit(.minutes(2)))
    func killDuringWrite() async throws {
        let binary = Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("tsec").path
        try #require(FileManager.default.isExecutableFile(atPath: binary))
        let directory = try TemporaryFolder()
        let name = directory.path + "/publisher"
        _ = await tsec(["pins", "keygen", "--out", name])
        let publicKey = try PinUpdatePublicKey(pemEncoded: String(contentsOfFile: name + ".pub", encoding: .utf8))
        let store = directory.path + "/store"
        var installed = 1
        let first = try directory.write("v1.json", Self.document(version: 1))
        _ = await tsec(["pins", "sign", "--key", name + ".key", first])
        #expect(await tsec(["pins", "install", "--public-key", name + ".pub", "--store", store, first, "--at", "2026-12-01T00:00:00Z"]).status == 0)

        var outcomes: [String: Int] = [:]
        for attempt in 2...13 {
            // About 1.7 MB of JSON: parsing, verifying and writing take long enough to be interrupted.
            let document = try directory.write("v\(attempt).json", Self.document(version: attempt, domains: 12_000))
            _ = await tsec(["pins", "sign", "--key", name + ".key", document])
            let child = try ChildProcess(binary, ["pins", "install", "--public-key", name + ".pub", "--store", store, document, "--at", "2026-12-01T00:00:00Z"])
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...900)))
            let killed = child.kill()
            await child.exit()
            let registry = PinSetRegistry(publicKey: publicKey, store: PinUpdateStore(path: store), clock: { Date(timeIntervalSince1970: 1_796_000_000) })
            let version = try registry.loadStored()
            #expect(version == installed || version == attempt, "after a kill: version \(String(describing: version)), expected \(installed) or \(attempt)")
            if version == attempt { installed = attempt }
            outcomes[killed ? (version == attempt ? "killed after the rename" : "killed before the rename") : "finished", default: 0] += 1
        }
        // Leftover temporary files are the only trace a kill may leave.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("store") && $0 != "store" }
        #expect(leftovers.allSatisfy { $0.hasPrefix("store.tmp-") })
        print("kill test outcomes: \(outcomes)")
    }
}

/// A child process that can be killed and awaited without `waitUntilExit`.
final class ChildProcess: @unchecked Sendable {
    private let process = Process()
    private let exited = DispatchSemaphore(value: 0)

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
    }

    /// Sends SIGKILL; true when the process was still running.
    func kill() -> Bool {
        guard process.isRunning else { return false }
        return Glibc.kill(process.processIdentifier, SIGKILL) == 0
    }

    /// Waits for the process to end.
    func exit() async {
        let exited = exited
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                exited.wait()
                continuation.resume()
            }
        }
    }
}

/// A folder for one test, removed afterwards.
final class TemporaryFolder {
    let path = NSTemporaryDirectory() + "tsec-cli-\(UUID().uuidString)"
    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` to `name` in the folder; the path.
    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}
