import Foundation
import PKIBuilder
import TestServers
import Testing
import TransportSecurity

@Suite("Loading certificates")
struct CertificateLoaderTests {
    let lab = LabFixture.shared.lab

    @Test("DER, one PEM block and a PEM bundle")
    func formats() throws {
        #expect(try CertificateLoader.certificates(from: lab.leaf.derBytes) == [lab.leaf.der])
        #expect(try CertificateLoader.certificates(from: Array(lab.leaf.pemString.utf8)) == [lab.leaf.der])
        let bundle = [lab.leaf, lab.intermediate, lab.root].pemBundle
        #expect(try CertificateLoader.certificates(from: Array(bundle.utf8)) == [lab.leaf, lab.intermediate, lab.root].map(\.der))
    }

    @Test("PKCS#7 certs-only bundles made by openssl crl2pkcs7 (DER, PEM, and the same with an indefinite-length outer SEQUENCE as BER allows) give their certificates in order; broken ones name the place")
    func pkcs7Bundles() throws {
        let directory = try TemporaryDirectory()
        let certificates = [lab.intermediate, lab.root]
        let input = try directory.write("chain.pem", text: certificates.pemBundle)
        let der = directory.path + "/chain.p7b"
        let pem = directory.path + "/chain.p7.pem"
        _ = try shell("openssl crl2pkcs7 -nocrl -certfile \(input) -outform DER -out \(der) && openssl crl2pkcs7 -nocrl -certfile \(input) -out \(pem)")
        let expected = certificates.map(\.der)
        #expect(try CertificateLoader.certificates(atPath: der) == expected)
        #expect(try CertificateLoader.certificates(atPath: pem) == expected)
        #expect(try String(contentsOfFile: pem, encoding: .utf8).contains("-----BEGIN PKCS7-----"))

        // BER: the outer SEQUENCE with an indefinite length, ended by two zero bytes.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: der)))
        let lengthBytes = bytes[1] < 0x80 ? 1 : 1 + Int(bytes[1] & 0x7F)
        let indefinite = [0x30, 0x80] + bytes[(1 + lengthBytes)...] + [0, 0]
        #expect(try CertificateLoader.certificates(from: indefinite) == expected)

        // A bundle cut short, and one whose second certificate is damaged.
        let cut = try #require(throws: CertificateLoadingError.self) { try CertificateLoader.certificates(from: bytes.dropLast(40), source: "cut.p7b") }
        #expect(cut.description.contains("cut.p7b") && cut.description.contains("PKCS#7"), "\(cut)")
        var damaged = bytes
        let rootStart = try #require(damaged.firstRange(of: lab.root.derBytes.prefix(64))).lowerBound
        damaged[rootStart + 4] = 0x31  // its tbsCertificate tagged SET, not SEQUENCE
        let error = try #require(throws: CertificateLoadingError.self) { try CertificateLoader.certificates(from: damaged, source: "damaged.p7b") }
        #expect(error.source == "damaged.p7b")
        #expect(error.index == 1, "\(error)")
    }

    @Test("CRLF line endings and private-key blocks beside certificates are fine")
    func tolerantPEM() throws {
        let withKey = try lab.leaf.privateKeyPEM + "\n" + lab.leaf.pemString
        #expect(try CertificateLoader.certificates(from: Array(withKey.utf8)) == [lab.leaf.der])
        let crlf = lab.leaf.pemString.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try CertificateLoader.certificates(from: Array(crlf.utf8)) == [lab.leaf.der])
    }

    @Test("a corrupt certificate inside a bundle is named by file and position")
    func corruptBundleMember() throws {
        let directory = try TemporaryDirectory()
        var damaged = lab.intermediate.pemString.split(separator: "\n").map(String.init)
        damaged[3] = String(repeating: "A", count: damaged[3].count)
        let file = try directory.write(
            "bundle.pem",
            text: [lab.leaf.pemString, damaged.joined(separator: "\n"), lab.root.pemString].joined(separator: "\n")
        )
        let error = try #require(throws: CertificateLoadingError.self) { try CertificateLoader.certificates(atPath: file) }
        #expect(error.source == file)
        #expect(error.index == 1)
        #expect(error.description.contains("certificate #2 of the bundle"))
    }

    @Test("a truncated PEM file says so")
    func truncatedPEM() throws {
        let pem = lab.leaf.pemString
        let truncated = String(pem.prefix(pem.count / 2))
        let error = try #require(throws: CertificateLoadingError.self) {
            try CertificateLoader.certificates(from: Array(truncated.utf8), source: "half.pem")
        }
        guard case .malformedPEM(let detail) = error.reason else {
            Issue.record("expected malformedPEM, got \(error)")
            return
        }
        #expect(detail.contains("no END line"))
    }

    @Test("a bundle whose PEM lines do not pair up says where: a block cut short before the next, an END without BEGIN, an END of another type")
    func unpairedPEMLines() throws {
        let leaf = lab.leaf.pemString
        let lines = leaf.split(separator: "\n")
        let cut = lines.prefix(3).joined(separator: "\n") + "\n"
        func detail(_ text: String) throws -> String {
            let error = try #require(throws: CertificateLoadingError.self) {
                try CertificateLoader.certificates(from: Array(text.utf8), source: "bundle.pem")
            }
            guard case .malformedPEM(let detail) = error.reason else { return "\(error)" }
            return detail
        }
        #expect(try detail(leaf + cut + leaf) == "the CERTIFICATE block #2 has no END line")
        #expect(try detail(leaf + "\n-----END CERTIFICATE-----\n") == "END CERTIFICATE without BEGIN")
        #expect(try detail(cut + "-----END PRIVATE KEY-----\n") == "the CERTIFICATE block #1 ends with END PRIVATE KEY")
    }

    @Test("truncated DER, garbage, empty input and key-only PEM each get their own reason")
    func badInput() throws {
        let truncated = Array(lab.leaf.derBytes.prefix(100))
        #expect(throws: CertificateLoadingError.self) { try CertificateLoader.certificates(from: truncated) }
        let garbage = try #require(throws: CertificateLoadingError.self) {
            try CertificateLoader.certificates(from: Array("hello, world".utf8), source: "hello.txt")
        }
        #expect(garbage.source == "hello.txt")
        if case .malformedCertificate = garbage.reason {} else { Issue.record("garbage: \(garbage.reason)") }
        #expect(garbage.description == "hello.txt is not a valid X.509 certificate: text, but neither PEM (there is no -----BEGIN line) nor DER")
        #expect(throws: CertificateLoadingError(source: "e", reason: .empty)) { try CertificateLoader.certificates(from: [UInt8](), source: "e") }
        #expect(throws: CertificateLoadingError(source: "k", reason: .noCertificates)) {
            try CertificateLoader.certificates(from: Array(try lab.leaf.privateKeyPEM.utf8), source: "k")
        }
    }

    @Test("DER cut short, DER certificates concatenated and bytes appended to one are each told apart")
    func derFraming() throws {
        func reason(_ bytes: [UInt8]) throws -> String {
            let error = try #require(throws: CertificateLoadingError.self) { try CertificateLoader.certificates(from: bytes, source: "in.der") }
            guard case .malformedCertificate(let detail) = error.reason else {
                Issue.record("not a malformed certificate: \(error.reason)")
                return ""
            }
            return detail
        }
        let leaf = lab.leaf.derBytes
        #expect(try reason(Array(leaf.prefix(100))) == "truncated: the input ends inside its DER encoding, after 100 bytes")
        #expect(
            try reason(leaf + lab.intermediate.derBytes + lab.root.derBytes)
                == "3 DER certificates one after another; a DER file holds one certificate: give each its own file, or write them as a PEM bundle"
        )
        // A whole DER structure (an empty SEQUENCE) after the certificate, and bytes that are no DER at all.
        #expect(try reason(leaf + [0x30, 0x00]) == "a DER certificate followed by 2 more bytes that are not part of it")
        #expect(try reason(leaf + Array("junk\n".utf8)) == "more bytes, which are not DER, follow the DER structure it begins with")
        #expect(try reason([0x04, 0x02, 0xFF, 0xFE]) == "not DER: a certificate begins with the byte 0x30 (a SEQUENCE), this input with 0x04")
        // Only the framing is explained: a whole structure that is no certificate keeps the
        // parser's reason, without the source location swift-asn1 appends to it.
        let inner = try reason([0x30, 0x03, 0x02, 0x01, 0x01])
        #expect(inner.hasPrefix("ASN1Error."))
        #expect(!inner.contains(".swift:"))
    }

    @Test("a missing file is an unreadable input naming the path")
    func missingFile() {
        #expect(throws: CertificateLoadingError(source: "/nonexistent/cert.pem", reason: .unreadable("no such file"))) {
            try CertificateLoader.certificates(atPath: "/nonexistent/cert.pem")
        }
    }

    @Test("a path holding a NUL is refused, never read as the file before the NUL (open(2) reads a C string)")
    func pathWithNUL() throws {
        let directory = NSTemporaryDirectory() + "tsec-nul-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/leaf.pem"
        try Data(lab.leaf.pemString.utf8).write(to: URL(fileURLWithPath: file))
        #expect(try CertificateLoader.certificates(atPath: file).count == 1)
        #expect(throws: CertificateLoadingError(source: file + "\u{0}.other", reason: .unreadable("the path holds a NUL character"))) {
            try CertificateLoader.certificates(atPath: file + "\u{0}.other")
        }
        #expect(throws: PinUpdateError.self) { try PinUpdateStore(path: directory + "/pins\u{0}x").write(document: [1], signature: [2]) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["leaf.pem"], "nothing written at the path before the NUL")
        try FileManager.default.removeItem(atPath: directory)
    }

    @Test("pipes and devices are read like files (<(command), /dev/stdin); /dev/null is empty; an endless input is refused past 64 MiB")
    func pipesAndDevices() throws {
        let pipe = Pipe()
        let bundle = Data([lab.leaf, lab.intermediate].pemBundle.utf8)
        let writer = Thread {
            pipe.fileHandleForWriting.write(bundle)
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        let path = "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)"
        #expect(try CertificateLoader.certificates(atPath: path) == [lab.leaf.der, lab.intermediate.der])
        try pipe.fileHandleForReading.close()

        #expect(throws: CertificateLoadingError(source: "/dev/null", reason: .empty)) {
            try CertificateLoader.certificates(atPath: "/dev/null")
        }
        #expect(throws: CertificateLoadingError(source: "/dev/zero", reason: .unreadable("it is larger than 64 MiB, more than such an input can be"))) {
            try CertificateLoader.certificates(atPath: "/dev/zero")
        }
        #expect(throws: CertificateLoadingError(source: "/", reason: .unreadable("it is a directory, not a file"))) {
            try CertificateLoader.certificates(atPath: "/")
        }
    }

    @Test("a directory yields every .cer .crt .der .pem file and reports the ones that fail")
    func directory() throws {
        let directory = try TemporaryDirectory()
        try directory.write("leaf.cer", lab.leaf.derBytes)
        try directory.write("intermediate.CRT", text: lab.intermediate.pemString)
        try directory.write("root.der", lab.root.derBytes)
        try directory.write("duplicate.pem", text: lab.root.pemString)
        try directory.write("notes.txt", text: "not a certificate")
        let broken = try directory.write("broken.pem", text: garbagePEMBlock("CERTIFICATE"))
        let contents = try CertificateLoader.certificates(inDirectory: directory.path)
        #expect(Set(contents.certificates) == Set([lab.leaf, lab.intermediate, lab.root].map(\.der)))
        #expect(contents.certificates.count == 3)
        #expect(contents.failures.map(\.source) == [broken])
    }

    @Test("default pinned certificates: loaded once, and a bad file fails the policy instead of being dropped")
    func defaultPinnedCertificates() throws {
        let directory = try TemporaryDirectory()
        try directory.write("pinned.cer", lab.leaf.derBytes)
        let cache = DefaultPinnedCertificates()
        #expect(try cache.certificates(inDirectory: directory.path) == [lab.leaf.der])
        // Loaded once: a file added later is not seen through the same cache.
        try directory.write("later.pem", text: lab.root.pemString)
        #expect(try cache.certificates(inDirectory: directory.path) == [lab.leaf.der])

        let broken = try TemporaryDirectory()
        try broken.write("good.pem", text: lab.root.pemString)
        try broken.write("bad.crt", text: "garbage")
        let error = try #require(throws: DefaultPinnedCertificatesError.self) {
            try SecurityPolicy(pinningMode: .certificate, certificatesInDirectory: broken.path)
        }
        #expect(error.failures.count == 1)
        #expect(error.description.contains("bad.crt"))

        let policy = try SecurityPolicy(pinningMode: .publicKey, certificatesInDirectory: directory.path)
        #expect(policy.pinnedCertificates.count == 2)
        #expect(policy.pinnedPublicKeys == Set([lab.leaf.der.spkiPin, lab.root.der.spkiPin]))
    }

    @Test("a path that is a file, not a directory, is reported")
    func notADirectory() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("x.pem", text: lab.root.pemString)
        #expect(throws: CertificateLoadingError(source: file, reason: .notADirectory)) {
            try CertificateLoader.certificates(inDirectory: file)
        }
    }
}

extension CertificateLoaderTests {
    @Test("PEM files concatenated without a final newline still split into certificates")
    func concatenatedWithoutNewline() throws {
        let glued = lab.leaf.pemString + lab.root.pemString
        #expect(try CertificateLoader.certificates(from: Array(glued.utf8)) == [lab.leaf.der, lab.root.der])
    }
}

extension CertificateLoaderTests {
    @Test("a bundle's resource folder is read like a directory")
    func bundleResources() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/pins", withIntermediateDirectories: true)
        try directory.write("pins/root.cer", lab.root.derBytes)
        let bundle = try #require(Bundle(path: directory.path))
        let resources = try #require(bundle.resourcePath)
        try FileManager.default.createDirectory(atPath: resources + "/pins", withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: resources + "/pins/root.cer") {
            try Data(lab.root.derBytes).write(to: URL(fileURLWithPath: resources + "/pins/root.cer"))
        }
        #expect(try CertificateLoader.certificates(in: bundle, subdirectory: "pins").certificates == [lab.root.der])
        let policy = try SecurityPolicy(pinningMode: .certificate, certificatesIn: bundle, subdirectory: "pins")
        #expect(policy.pinnedCertificates == [lab.root.der])
    }
}

extension CertificateLoaderTests {
    /// Found by `Fuzz/run.sh FuzzCertificateLoading`: swift-crypto 3.x freed an RSA key twice when
    /// neither of its RSA parsers accepted the key, so such a certificate crashed the process that
    /// read it (a server could crash its clients). swift-crypto 4 releases the key once.
    @Test("a certificate whose RSA key the crypto library refuses is a malformed certificate, not a crash")
    func unreadableRSAKey() throws {
        let rsa = try lab.pki.issue(.server(lab.host), by: lab.root, algorithm: .rsa2048)
        // An even public exponent: the SPKI is well-formed DER, but no RSA parser accepts the key.
        let exponent65537: [UInt8] = [0x02, 0x03, 0x01, 0x00, 0x01]
        var damaged = rsa.derBytes
        let start = try #require(damaged.indices.first { damaged[$0...].starts(with: exponent65537) })
        damaged[start + 4] = 0x02
        let error = try #require(throws: CertificateLoadingError.self) {
            try CertificateLoader.certificates(from: damaged, source: "even-exponent.der")
        }
        #expect(error.source == "even-exponent.der")
        if case .malformedCertificate = error.reason {} else { Issue.record("expected malformedCertificate, got \(error.reason)") }
    }
}
