import Foundation
import PKIBuilder
import Testing
import TransportSecurity
import TestServers
import TransportSecurityNIO

/// PKCS#12 files are made by `openssl pkcs12 -export`: an independent implementation.
@Suite("Client identities")
struct ClientIdentityTests {
    let lab = try! TrustLab()
    let directory: String

    init() throws {
        directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("tsec-identity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    /// `openssl pkcs12 -export` of the lab leaf (with its intermediate), plus extra arguments.
    func exportPKCS12(_ name: String, passphrase: String, extra: String = "") throws -> String {
        let certificate = try write("\(name).crt", [lab.leaf, lab.intermediate].pemBundle)
        let key = try write("\(name).key", try lab.leaf.privateKeyPEM)
        let output = path("\(name).p12")
        _ = try shell("openssl pkcs12 -export -in '\(certificate)' -inkey '\(key)' -out '\(output)' -passout 'pass:\(passphrase)' \(extra)")
        return output
    }

    @Test("PKCS#12 from a file, from bytes and from base64 text")
    func pkcs12() throws {
        let file = try exportPKCS12("good", passphrase: "correct horse")
        let identity = try ClientIdentity(pkcs12File: file, passphrase: "correct horse")
        #expect(identity.leaf == lab.leaf.der)
        #expect(identity.certificateChain.count == 2)
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(try ClientIdentity(pkcs12: bytes, passphrase: "correct horse").leaf == lab.leaf.der)
        let base64 = Data(bytes).base64EncodedString(options: .lineLength64Characters)
        #expect(try ClientIdentity(pkcs12Base64: base64, passphrase: "correct horse").leaf == lab.leaf.der)
    }

    @Test("a wrong passphrase is its own error, and the passphrase is not in it")
    func wrongPassphrase() throws {
        let file = try exportPKCS12("locked", passphrase: "s3cret-passphrase")
        let error = try #require(throws: ClientIdentityError.self) {
            try ClientIdentity(pkcs12File: file, passphrase: "guess-passphrase")
        }
        #expect(error.reason == .wrongPassphrase)
        #expect(!error.description.contains("guess-passphrase"))
        #expect(!error.description.contains("s3cret-passphrase"))
        #expect(error.description.contains(file))
    }

    @Test("truncated, not PKCS#12, empty: each its own error")
    func corrupt() throws {
        let file = try exportPKCS12("whole", passphrase: "pw")
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: file)))
        let truncated = try #require(throws: ClientIdentityError.self) {
            try ClientIdentity(pkcs12: Array(bytes.prefix(bytes.count / 2)), passphrase: "pw")
        }
        guard case .notPKCS12 = truncated.reason else { Issue.record("truncated: \(truncated)"); return }
        let pem = try #require(throws: ClientIdentityError.self) {
            try ClientIdentity(pkcs12: Array(lab.leaf.pemString.utf8), passphrase: "pw")
        }
        guard case .notPKCS12 = pem.reason else { Issue.record("pem: \(pem)"); return }
        #expect(throws: ClientIdentityError(source: "PKCS#12 data", reason: .empty)) { try ClientIdentity(pkcs12: [], passphrase: "pw") }
        #expect(throws: ClientIdentityError(source: "PKCS#12 base64 text", reason: .empty)) { try ClientIdentity(pkcs12Base64: " \n", passphrase: "pw") }
        let notBase64 = try #require(throws: ClientIdentityError.self) { try ClientIdentity(pkcs12Base64: "%%%", passphrase: "pw") }
        guard case .notPKCS12 = notBase64.reason else { Issue.record("base64: \(notBase64)"); return }
        let missing = try #require(throws: ClientIdentityError.self) { try ClientIdentity(pkcs12File: path("missing.p12"), passphrase: "pw") }
        #expect(missing.reason == .unreadable("no such file"))
    }

    @Test("the PKCS#12 forms openssl writes: AES (OpenSSL 3), 3DES and RC2 (-legacy), an empty passphrase, a SHA-512 MAC; without a MAC or with Camellia it says why it cannot be loaded")
    func pkcs12Forms() throws {
        for (name, passphrase, extra) in [
            ("aes", "pw", ""),
            ("des", "pw", "-certpbe PBE-SHA1-3DES -keypbe PBE-SHA1-3DES -macalg sha1"),
            ("rc2", "pw", "-legacy"),
            ("empty-passphrase", "", ""),
        ] {
            let file = try exportPKCS12(name, passphrase: passphrase, extra: extra)
            #expect(try ClientIdentity(pkcs12File: file, passphrase: passphrase).leaf == lab.leaf.der, "\(name)")
        }
        let unprotected = try exportPKCS12("no-mac", passphrase: "", extra: "-keypbe NONE -certpbe NONE -nomac")
        let error = try #require(throws: ClientIdentityError.self) { try ClientIdentity(pkcs12File: unprotected, passphrase: "") }
        guard case .unsupportedPKCS12(let detail) = error.reason else { Issue.record("\(error)"); return }
        #expect(detail.contains("no integrity MAC"))
        let camellia = try exportPKCS12("camellia", passphrase: "pw", extra: "-keypbe CAMELLIA-256-CBC -certpbe CAMELLIA-256-CBC")
        let unsupported = try #require(throws: ClientIdentityError.self) { try ClientIdentity(pkcs12File: camellia, passphrase: "pw") }
        guard case .unsupportedPKCS12(let cipher) = unsupported.reason else { Issue.record("\(unsupported)"); return }
        #expect(cipher.contains("an algorithm BoringSSL does not implement"))
        #expect(try ClientIdentity(pkcs12File: try exportPKCS12("sha512-mac", passphrase: "pw", extra: "-macalg sha512"), passphrase: "pw").leaf == lab.leaf.der)
    }

    @Test("a PKCS#12 without a private key is an error, never a crash")
    func noKey() throws {
        let file = try exportPKCS12("nokey", passphrase: "pw", extra: "-nokeys")
        let error = try #require(throws: ClientIdentityError.self) { try ClientIdentity(pkcs12File: file, passphrase: "pw") }
        #expect([ClientIdentityError.Reason.noPrivateKey, .privateKeyNotReadable].contains(error.reason))
        let plain = try exportPKCS12("nokey-plain", passphrase: "pw", extra: "-nokeys -certpbe NONE")
        let plainError = try #require(throws: ClientIdentityError.self) { try ClientIdentity(pkcs12File: plain, passphrase: "pw") }
        #expect(plainError.reason == .noPrivateKey)
    }

    @Test("PEM: certificate and key files; mismatched key; missing key; encrypted key with passphrase")
    func pem() throws {
        let certificate = try write("leaf.crt", [lab.leaf, lab.intermediate].pemBundle)
        let key = try write("leaf.key", try lab.leaf.privateKeyPEM)
        #expect(try ClientIdentity(certificateFile: certificate, privateKeyFile: key).leaf == lab.leaf.der)

        let otherKey = try write("other.key", try lab.root.privateKeyPEM)
        let mismatch = try #require(throws: ClientIdentityError.self) {
            try ClientIdentity(certificateFile: certificate, privateKeyFile: otherKey)
        }
        #expect(mismatch.reason == .keyDoesNotMatchCertificate)

        // The issuer before the leaf (`cat intermediate.pem leaf.pem`): the key is the second
        // certificate's, and the error says so instead of calling the key a stranger.
        let reversed = try write("reversed.crt", [lab.intermediate, lab.leaf].pemBundle)
        let outOfOrder = try #require(throws: ClientIdentityError.self) {
            try ClientIdentity(certificateFile: reversed, privateKeyFile: key)
        }
        #expect(outOfOrder.reason == .chainOutOfOrder(keyCertificatePosition: 2, subject: lab.leaf.der.subjectSummary))
        #expect(outOfOrder.description.contains("lists its certificates out of order: the private key belongs to certificate #2 (\(lab.leaf.der.subjectSummary)), which must come first"))

        let empty = try write("empty.key", "")
        #expect(throws: ClientIdentityError.self) { try ClientIdentity(certificateFile: certificate, privateKeyFile: empty) }
        // The certificate file given as the key too: no key, not a key that does not parse.
        #expect(throws: ClientIdentityError(source: "\(certificate) + \(certificate)", reason: .noPrivateKey)) {
            try ClientIdentity(certificateFile: certificate, privateKeyFile: certificate)
        }
        let garbage = try write("garbage.key", garbagePEMBlock("PRIVATE KEY"))
        let malformed = try #require(throws: ClientIdentityError.self) {
            try ClientIdentity(certificateFile: certificate, privateKeyFile: garbage)
        }
        guard case .malformedPrivateKey = malformed.reason else { Issue.record("\(malformed)"); return }

        let encrypted = path("encrypted.key")
        _ = try shell("openssl pkcs8 -topk8 -in '\(key)' -out '\(encrypted)' -passout pass:open-sesame")
        #expect(try ClientIdentity(certificateFile: certificate, privateKeyFile: encrypted, passphrase: "open-sesame").leaf == lab.leaf.der)
        let wrong = try #require(throws: ClientIdentityError.self) {
            try ClientIdentity(certificateFile: certificate, privateKeyFile: encrypted, passphrase: "nope")
        }
        #expect(wrong.reason == .wrongPassphrase)
        #expect(!wrong.description.contains("nope"))
        #expect(throws: ClientIdentityError(source: "\(certificate) + \(encrypted)", reason: .passphraseRequired)) {
            try ClientIdentity(certificateFile: certificate, privateKeyFile: encrypted)
        }
    }

    @Test("PEM certificates: none (empty, white space, text without a PEM block, an empty chain), or a block that does not parse: each its own error")
    func pemCertificateErrors() throws {
        let key = try lab.leaf.privateKeyPEM
        func reason(_ certificates: String) throws -> ClientIdentityError.Reason {
            try #require(throws: ClientIdentityError.self) { try ClientIdentity(certificateChainPEM: certificates, privateKeyPEM: key) }.reason
        }
        #expect(try reason("") == .noCertificate)
        #expect(try reason(" \n\t") == .noCertificate)
        #expect(try reason("hello, no certificate here") == .noCertificate)
        #expect(try reason(key) == .noCertificate, "the key given as the certificate")
        guard case .malformedCertificate = try reason(garbagePEMBlock("CERTIFICATE")) else {
            Issue.record("a corrupt certificate block is malformed")
            return
        }
        let empty = try #require(throws: ClientIdentityError.self) {
            try ClientIdentity(certificateChain: [], privateKey: try ClientIdentity(certificateChainPEM: lab.leaf.pemString, privateKeyPEM: key).privateKey)
        }
        #expect(empty.reason == .noCertificate)

        let der = path("leaf.der")
        try Data(lab.leaf.der.derBytes).write(to: URL(fileURLWithPath: der))
        let binary = try #require(throws: ClientIdentityError.self) {
            try ClientIdentity(certificateFile: der, privateKeyFile: try write("leaf.key", key))
        }
        #expect(binary.description.contains("is DER (binary), not PEM text; tsec convert \(der) -o FILE.pem --to pem writes it as PEM"))
    }
}
