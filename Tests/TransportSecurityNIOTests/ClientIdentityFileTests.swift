import Foundation
import PKIBuilder
import Testing
import TestServers
import TransportSecurity
import TransportSecurityNIO

/// Identities in files replaced while a process runs: PKCS#12 files made by
/// `openssl pkcs12 -export`, PEM pairs written as a renewal would write them.
@Suite("Client identity files read again when they change")
struct ClientIdentityFileTests {
    let files = try! ClientCertificateLab()
    var alice: IssuedCertificate { files.alice }
    var bob: IssuedCertificate { files.bob }

    func path(_ name: String) -> String { files.path(name) }

    @discardableResult
    func replace(_ name: String, with bytes: some DataProtocol) throws -> String {
        try files.replace(name, with: bytes)
    }

    /// `certificate` and its key as PKCS#12 bytes under `passphrase` (`openssl pkcs12 -export`).
    func pkcs12(_ certificate: IssuedCertificate, passphrase: String) throws -> Data {
        let name = UUID().uuidString
        try Data(certificate.pemString.utf8).write(to: URL(fileURLWithPath: path("\(name).crt")))
        try Data(certificate.privateKeyPEM.utf8).write(to: URL(fileURLWithPath: path("\(name).key")))
        _ = try shell("openssl pkcs12 -export -in '\(path("\(name).crt"))' -inkey '\(path("\(name).key"))' -out '\(path("\(name).p12"))' -passout 'pass:\(passphrase)'")
        return try Data(contentsOf: URL(fileURLWithPath: path("\(name).p12")))
    }

    @Test("a replaced PKCS#12 file is read at the next look: not before checkInterval has passed, at once through reloadIfChanged")
    func pkcs12Renewal() throws {
        let file = try replace("client.p12", with: pkcs12(alice, passphrase: "renewal pass"))
        let identities = try ClientIdentityFile(pkcs12File: file, passphrase: "renewal pass", checkInterval: .seconds(3600))
        #expect(identities.identity.leaf == alice.der)
        #expect(identities.paths == [file])
        try replace("client.p12", with: pkcs12(bob, passphrase: "renewal pass"))
        #expect(identities.identity.leaf == alice.der, "within checkInterval the files are not looked at")
        #expect(identities.reloadIfChanged().leaf == bob.der)
        #expect(identities.identity.leaf == bob.der)
        #expect(identities.lastReloadError == nil)
        // With no interval, every use looks.
        let looking = try ClientIdentityFile(pkcs12File: file, passphrase: "renewal pass", checkInterval: .zero)
        #expect(looking.identity.leaf == bob.der)
        try replace("client.p12", with: pkcs12(alice, passphrase: "renewal pass"))
        #expect(looking.identity.leaf == alice.der)
    }

    @Test("a PKCS#12 file with its passphrase in another file: renewed together, and the passphrase file alone watched too")
    func passphraseFile() throws {
        let file = try replace("client.p12", with: pkcs12(alice, passphrase: "first-phrase"))
        let passphrase = try replace("passphrase", with: Data("first-phrase\n".utf8))
        let identities = try ClientIdentityFile(pkcs12File: file, passphraseFile: passphrase, checkInterval: .zero, logger: LogRecording().logger)
        #expect(identities.paths == [file, passphrase])
        #expect(identities.identity.leaf == alice.der)
        // The new file first: its passphrase is not there yet.
        try replace("client.p12", with: pkcs12(bob, passphrase: "second-phrase"))
        #expect(identities.identity.leaf == alice.der)
        #expect(identities.lastReloadError?.reason == .wrongPassphrase)
        try replace("passphrase", with: Data("second-phrase\r\n".utf8))
        #expect(identities.identity.leaf == bob.der)
        let missing = try #require(throws: ClientIdentityError.self) {
            try ClientIdentityFile(pkcs12File: file, passphraseFile: path("no-passphrase"))
        }
        #expect(missing == ClientIdentityError(source: path("no-passphrase"), reason: .unreadable("no such file")))
    }

    @Test("a change that does not load keeps the previous identity, says why, and is tried again when the files change again")
    func failedReloadKeepsPrevious() throws {
        let file = try replace("client.p12", with: pkcs12(alice, passphrase: "s3cret-phrase"))
        let recording = LogRecording()
        let identities = try ClientIdentityFile(pkcs12File: file, passphrase: "s3cret-phrase", checkInterval: .zero, logger: recording.logger)
        let whole = try pkcs12(bob, passphrase: "s3cret-phrase")
        // Caught half-written.
        try replace("client.p12", with: whole.prefix(whole.count / 2))
        #expect(identities.identity.leaf == alice.der)
        let truncated = try #require(identities.lastReloadError)
        guard case .notPKCS12 = truncated.reason else { Issue.record("truncated: \(truncated)"); return }
        #expect(truncated.source == file)
        // A file under another passphrase.
        try replace("client.p12", with: pkcs12(bob, passphrase: "other-s3cret-phrase"))
        #expect(identities.identity.leaf == alice.der)
        #expect(identities.lastReloadError?.reason == .wrongPassphrase)
        // Removed (a rotation that deletes, then writes).
        #expect(unlink(file) == 0)
        #expect(identities.identity.leaf == alice.der)
        #expect(identities.lastReloadError?.reason == .unreadable("no such file"))
        // The renewal arrives whole.
        try replace("client.p12", with: whole)
        #expect(identities.identity.leaf == bob.der)
        #expect(identities.lastReloadError == nil)
        let warnings = recording.entries.filter { $0.level == .warning }
        #expect(warnings.count == 3, "one warning per change that did not load, not one per look: \(recording.text)")
        #expect(recording.entries.filter { $0.level == .debug && $0.message == "client identity reloaded" }.count == 1)
        #expect(recording.text.contains("CN=bob"))
        #expect(!recording.text.contains("s3cret"), "the passphrase is never logged: \(recording.text)")
    }

    @Test("a PEM pair renewed one file at a time: the certificate without its key is not presented, the pair once both are there")
    func pemPairRenewal() throws {
        let certificate = try replace("client.crt", with: Data(alice.pemString.utf8))
        let key = try replace("client.key", with: Data(alice.privateKeyPEM.utf8))
        let identities = try ClientIdentityFile(certificateFile: certificate, privateKeyFile: key, checkInterval: .zero)
        #expect(identities.identity.leaf == alice.der)
        #expect(identities.paths == [certificate, key])
        try replace("client.crt", with: Data(bob.pemString.utf8))
        #expect(identities.identity.leaf == alice.der)
        #expect(identities.lastReloadError?.reason == .keyDoesNotMatchCertificate)
        try replace("client.key", with: Data(bob.privateKeyPEM.utf8))
        #expect(identities.identity.leaf == bob.der)
        #expect(identities.lastReloadError == nil)
    }

    @Test("a Kubernetes secret volume: the files are links through ..data, switched to a new folder at once")
    func secretVolumeSwitch() throws {
        let first = path("..2026_11_26_01")
        let second = path("..2026_11_26_02")
        for (folder, holder) in [(first, alice), (second, bob)] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(holder.pemString.utf8).write(to: URL(fileURLWithPath: folder + "/tls.crt"))
            try Data(holder.privateKeyPEM.utf8).write(to: URL(fileURLWithPath: folder + "/tls.key"))
        }
        #expect(symlink((first as NSString).lastPathComponent, path("..data")) == 0)
        #expect(symlink("..data/tls.crt", path("tls.crt")) == 0)
        #expect(symlink("..data/tls.key", path("tls.key")) == 0)
        let identities = try ClientIdentityFile(certificateFile: path("tls.crt"), privateKeyFile: path("tls.key"), checkInterval: .zero)
        #expect(identities.identity.leaf == alice.der)
        // kubelet makes a new link and renames it over ..data.
        #expect(symlink((second as NSString).lastPathComponent, path("..data_tmp")) == 0)
        #expect(rename(path("..data_tmp"), path("..data")) == 0)
        #expect(identities.identity.leaf == bob.der)
    }

    @Test("read from many tasks while renewals come and go: always one of the identities the files held, whole")
    func concurrentReaders() async throws {
        let certificate = try replace("busy.crt", with: Data(alice.pemString.utf8))
        let key = try replace("busy.key", with: Data(alice.privateKeyPEM.utf8))
        let identities = try ClientIdentityFile(certificateFile: certificate, privateKeyFile: key, checkInterval: .zero, logger: LogRecording().logger)
        let expected = [alice.der, bob.der]
        let seen = try await withThrowingTaskGroup(of: Set<DERCertificate>.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var leaves = Set<DERCertificate>()
                    for _ in 0..<200 {
                        let identity = identities.identity
                        leaves.insert(identity.leaf)
                        #expect(identity.chainFingerprint.count == 32)
                    }
                    return leaves
                }
            }
            for round in 0..<20 {
                let holder = round.isMultiple(of: 2) ? bob : alice
                try replace("busy.crt", with: Data(holder.pemString.utf8))
                try replace("busy.key", with: Data(holder.privateKeyPEM.utf8))
            }
            return try await group.reduce(into: Set<DERCertificate>()) { $0.formUnion($1) }
        }
        #expect(seen.isSubset(of: Set(expected)))
        #expect(identities.reloadIfChanged().leaf == alice.der, "the last renewal installed alice")
    }

    @Test("files that do not load at first are an error naming them")
    func firstLoadFails() throws {
        let missing = try #require(throws: ClientIdentityError.self) {
            try ClientIdentityFile(pkcs12File: path("missing.p12"), passphrase: "pw")
        }
        #expect(missing == ClientIdentityError(source: path("missing.p12"), reason: .unreadable("no such file")))
        let certificate = try replace("only.crt", with: Data(alice.pemString.utf8))
        let otherKey = try replace("other.key", with: Data(bob.privateKeyPEM.utf8))
        let mismatch = try #require(throws: ClientIdentityError.self) {
            try ClientIdentityFile(certificateFile: certificate, privateKeyFile: otherKey)
        }
        #expect(mismatch.reason == .keyDoesNotMatchCertificate)
    }

    @Test("the same identity written again is read, but no renewal is logged")
    func rewrittenUnchanged() throws {
        let certificate = try replace("same.crt", with: Data(alice.pemString.utf8))
        let key = try replace("same.key", with: Data(alice.privateKeyPEM.utf8))
        let recording = LogRecording()
        let identities = try ClientIdentityFile(certificateFile: certificate, privateKeyFile: key, checkInterval: .zero, logger: recording.logger)
        try replace("same.crt", with: Data(alice.pemString.utf8))
        #expect(identities.identity.leaf == alice.der)
        #expect(recording.entries.isEmpty, "\(recording.text)")
    }
}

/// A SwiftNIO server presenting the identity its files hold.
@Suite("Server identity files read again when they change")
struct ServerIdentityFileTests {
    let files = try! ClientCertificateLab()

    /// Writes `chain` (leaf first) and its leaf's key as `server.crt` and `server.key`.
    func install(_ chain: [IssuedCertificate], certificate: Bool = true, key: Bool = true) throws {
        if certificate { try files.replace("server.crt", with: Data(chain.pemBundle.utf8)) }
        if key { try files.replace("server.key", with: Data(chain[0].privateKeyPEM.utf8)) }
    }

    @Test("transportSecurityServer(identityFile:) presents a renewed certificate from the next handshake on, and the previous one while a renewal is half done")
    func serverRenewal() async throws {
        let first = try files.lab.loopbackChain()
        let renewed = try files.lab.loopbackChain()
        try install(first)
        let identityFile = try ClientIdentityFile(certificateFile: files.path("server.crt"), privateKeyFile: files.path("server.key"), checkInterval: .zero)
        let server = try await TLSTestServer(configuration: .transportSecurityServer(identityFile: identityFile))
        func presented() async throws -> [DERCertificate] { try await PeerChainFetcher.fetch(host: "127.0.0.1", port: server.port) }
        #expect(try await presented() == first.map(\.der))
        try install(renewed, key: false)
        #expect(try await presented() == first.map(\.der), "a certificate without its key is not presented")
        try install(renewed, certificate: false)
        #expect(try await presented() == renewed.map(\.der))
        // Back to the identity the configuration was made with.
        try install(first)
        #expect(try await presented() == first.map(\.der))
        await server.stop()
    }
}
