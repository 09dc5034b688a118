import Foundation
import LabServers
import PKIBuilder
import TestServers
import Testing
import TransportSecurity

@Suite("tsec inspect")
struct InspectCommandTests {
    let pki = PKI()
    let directory: String

    init() throws {
        directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("tsec-inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ contents: String) throws -> String {
        let path = (directory as NSString).appendingPathComponent(name)
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `tsec inspect --json` on `source` at the PKI's time: the certificates as dictionaries.
    func inspect(_ source: String) async throws -> [[String: Any]] {
        let result = await tsec(["inspect", source, "--json", "--at", pki.now.formatted(.iso8601)])
        #expect(result.status == 0, "\(result.output.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.stdout.utf8)) as? [String: Any])
        #expect(json["source"] as? String == source)
        return try #require(json["certificates"] as? [[String: Any]])
    }

    @Test("every key type the PKI builder makes: key, size and signature algorithm", arguments: [
        (KeyAlgorithm.p256, "EC P-256", 256, "ecdsaWithSHA256"),
        (.p384, "EC P-384", 384, "ecdsaWithSHA384"),
        (.rsa2048, "RSA", 2048, "sha256WithRSAEncryption"),
        (.ed25519, "Ed25519", 256, "ed25519"),
    ])
    func keyTypes(algorithm: KeyAlgorithm, keyType: String, bits: Int, signature: String) async throws {
        let root = try pki.issueRoot(.certificateAuthority("Root \(keyType)"), algorithm: algorithm)
        let certificate = try #require(try await inspect(write("root.pem", root.pemString)).first)
        #expect(certificate["keyType"] as? String == keyType)
        #expect(certificate["keyBits"] as? Int == bits)
        #expect(certificate["signatureAlgorithm"] as? String == signature)
        #expect(certificate["subject"] as? String == "CN=Root \(keyType)")
        #expect(certificate["isSelfIssued"] as? Bool == true)
        #expect(certificate["isCertificateAuthority"] as? Bool == true)
        #expect(certificate["pathLengthConstraint"] == nil)
        #expect(certificate["keyUsage"] as? [String] == ["keyCertSign", "cRLSign"])
        #expect(certificate["spkiPin"] as? String == root.der.spkiPin.description)
        #expect(certificate["version"] as? String == "v3")
    }

    @Test("a server chain: SANs, usages, serial, path length, fingerprint; the text form labels each field")
    func serverChain() async throws {
        let root = try pki.issueRoot(.certificateAuthority("Root"))
        let intermediate = try pki.issue(.certificateAuthority("Issuing CA", pathLength: 0), by: root)
        let leaf = try pki.issue(
            CertificateProfile.server("api.example.test", dnsNames: ["api.example.test", "*.api.example.test"], ipAddresses: ["127.0.0.1", "::1"])
                .pointingTo(ocsp: "http://ocsp.example.test", caIssuers: ["http://ca.example.test/issuing.cer", "ldap://ca.example.test/cn=issuing"]),
            by: intermediate
        )
        let path = try write("chain.pem", [leaf, intermediate].pemBundle)
        let certificates = try await inspect(path)
        #expect(certificates.count == 2)
        let (server, issuing) = (certificates[0], certificates[1])
        #expect(server["subjectAlternativeNames"] as? [String] == ["DNS:api.example.test", "DNS:*.api.example.test", "IP:127.0.0.1", "IP:::1"])
        #expect(server["extendedKeyUsage"] as? [String] == ["serverAuth"])
        #expect(server["keyUsage"] as? [String] == ["digitalSignature", "keyEncipherment"])
        #expect(server["isCertificateAuthority"] as? Bool == false)
        #expect(server["issuer"] as? String == "CN=Issuing CA")
        #expect(server["serialNumber"] as? String == leaf.certificate.serialNumber.bytes.map { String(format: "%02X", $0) }.joined(separator: ":"))
        #expect(server["sha256Fingerprint"] as? String == leaf.der.sha256Fingerprint.map { String(format: "%02X", $0) }.joined(separator: ":"))
        #expect(issuing["pathLengthConstraint"] as? Int == 0)
        #expect(issuing["extendedKeyUsage"] == nil)
        #expect(server["issuerCertificateURLs"] as? [String] == ["http://ca.example.test/issuing.cer", "ldap://ca.example.test/cn=issuing"])
        #expect(server["ocspResponderURLs"] as? [String] == ["http://ocsp.example.test"])
        #expect(issuing["issuerCertificateURLs"] as? [String] == [])

        let text = await tsec(["inspect", path, "--at", pki.now.formatted(.iso8601)])
        #expect(text.status == 0)
        for field in ["Certificate 1 of 2", "Certificate 2 of 2", "Subject:        CN=api.example.test", "Extended usage: serverAuth",
                      "CA:             yes, path length 0", "SPKI pin:       \(leaf.der.spkiPin)", "Key:            EC P-256, 256 bits",
                      "CA issuers:     http://ca.example.test/issuing.cer", "OCSP:           http://ocsp.example.test"] {
            #expect(text.output.stdout.contains(field), "missing \(field)")
        }
    }

    @Test("client certificates, and certificates without basic constraints")
    func clientAndBare() async throws {
        let root = try pki.issueRoot(.certificateAuthority("Root"))
        let client = try pki.issue(.client("alice"), by: root)
        var bareProfile = CertificateProfile.server("bare.example.test")
        bareProfile.includesBasicConstraints = false
        bareProfile.extendedKeyUsages = nil
        let bare = try pki.issue(bareProfile, by: root)
        let certificates = try await inspect(write("two.pem", [client, bare].pemBundle))
        #expect(certificates[0]["extendedKeyUsage"] as? [String] == ["clientAuth"])
        #expect(certificates[0]["subjectAlternativeNames"] as? [String] == [])
        #expect(certificates[1]["isCertificateAuthority"] == nil)
        #expect(certificates[1]["extendedKeyUsage"] == nil)
        let text = await tsec(["inspect", try write("bare.pem", bare.pemString), "--at", pki.now.formatted(.iso8601)])
        #expect(text.output.stdout.contains("CA:             no (no basic constraints)"))
        #expect(text.output.stdout.contains("Extended usage: (no extension)"))
        #expect(!text.output.stdout.contains("SPIFFE ID"))
        #expect(certificates[0]["spiffeID"] == nil)
    }

    @Test("an X.509 SVID: its SPIFFE ID, in the text form and in JSON")
    func spiffeSVID() async throws {
        let root = try pki.issueRoot(.certificateAuthority("Mesh Root"))
        let svid = try pki.issue(.client("checkout", uris: ["spiffe://payments.example/ns/checkout/sa/api"]), by: root)
        let certificates = try await inspect(write("svid.pem", svid.pemString))
        #expect(certificates[0]["spiffeID"] as? String == "spiffe://payments.example/ns/checkout/sa/api")
        #expect(certificates[0]["subjectAlternativeNames"] as? [String] == ["URI:spiffe://payments.example/ns/checkout/sa/api"])
        let text = await tsec(["inspect", try write("svid.pem", svid.pemString), "--at", pki.now.formatted(.iso8601)])
        #expect(text.output.stdout.contains("SPIFFE ID:      spiffe://payments.example/ns/checkout/sa/api"))
    }

    @Test("validity: days left, expired some days ago, not valid yet")
    func validity() async throws {
        let root = try pki.issueRoot(.certificateAuthority("Root"))
        let expired = try pki.issue(.server("old.example.test").valid(from: -400 * PKI.day, until: -10 * PKI.day), by: root)
        let future = try pki.issue(.server("new.example.test").valid(from: 3 * PKI.day, until: 400 * PKI.day), by: root)
        let current = try pki.issue(.server("now.example.test").valid(from: -PKI.day, until: 90 * PKI.day), by: root)
        let certificates = try await inspect(write("dates.pem", [expired, future, current].pemBundle))
        #expect(certificates.map { $0["validity"] as? String } == ["expired 10 days ago", "not valid yet, starts in 3 days", "valid, 90 days left"])
        #expect(certificates.map { $0["daysLeft"] as? Int } == [-10, 400, 90])
    }

    @Test("a DER file and a live server's chain")
    func derAndLiveServer() async throws {
        let lab = try TrustLab(pki: pki)
        let der = (directory as NSString).appendingPathComponent("leaf.der")
        try Data(lab.leaf.der.derBytes).write(to: URL(fileURLWithPath: der))
        #expect(try await inspect(der).first?["subject"] as? String == "CN=api.example.test")

        let server = try await LabHTTPSServer.start(chain: lab.chain(.legitimate), page: "hi")
        let certificates = try await inspect("127.0.0.1:\(server.port)")
        #expect(certificates.map { $0["subject"] as? String } == ["CN=api.example.test", "CN=TransportSecurity Lab Issuing CA"])
        await server.stop()
    }

    @Test("garbage, empty and missing input: a clear error and exit 2; no server: exit 3")
    func badInput() async throws {
        let garbage = try write("garbage.pem", garbagePEMBlock("CERTIFICATE"))
        let empty = try write("empty.pem", "")
        let binary = (directory as NSString).appendingPathComponent("noise.der")
        try Data([0x30, 0x82, 0xFF, 0xFF, 0x01]).write(to: URL(fileURLWithPath: binary))
        for (path, words) in [(garbage, "garbage.pem"), (empty, "empty"), (binary, "noise.der")] {
            let result = await tsec(["inspect", path])
            #expect(result.status == 2)
            #expect(result.output.stderr.contains(words), "\(result.output.stderr)")
            #expect(result.output.stdout.isEmpty)
        }
        let missing = await tsec(["inspect", "/no/such/file.pem"])
        #expect(missing.status == 2)
        #expect(missing.output.stderr == "tsec inspect: /no/such/file.pem: no such file\n")
        let closed = await tsec(["inspect", "127.0.0.1:1"])
        #expect(closed.status == 3)
    }

    @Test("a PKCS#12 identity: its certificates and its key, with the passphrase from a file or the environment, or the empty one; a protected file without one asks for it")
    func pkcs12Identity() async throws {
        let root = try pki.issueRoot(.certificateAuthority("Client Root"))
        let intermediate = try pki.issue(.certificateAuthority("Client Issuing CA", pathLength: 0), by: root)
        let alice = try pki.issue(.client("alice"), by: intermediate)
        let certificate = try write("alice.crt", [alice, intermediate].pemBundle)
        let key = try write("alice.key", alice.privateKeyPEM)
        let p12 = (directory as NSString).appendingPathComponent("alice.p12")
        _ = try shell("openssl pkcs12 -export -in '\(certificate)' -inkey '\(key)' -out '\(p12)' -passout pass:inspect-s3cret")
        let passphraseFile = try write("passphrase", "inspect-s3cret\n")
        let at = pki.now.formatted(.iso8601)
        let result = await tsec(["inspect", p12, "--passphrase-file", passphraseFile, "--json", "--at", at])
        #expect(result.status == 0, "\(result.output.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.stdout.utf8)) as? [String: Any])
        let certificates = try #require(json["certificates"] as? [[String: Any]])
        #expect(certificates.map { $0["subject"] as? String } == ["CN=alice", "CN=Client Issuing CA"])
        let privateKey = try #require(json["privateKey"] as? [String: Any])
        #expect(privateKey["keyType"] as? String == "EC P-256")
        #expect(privateKey["keyBits"] as? Int == 256)
        #expect(privateKey["certificate"] as? Int == 1)
        #expect(privateKey["subject"] as? String == "CN=alice")
        setenv("TSEC_TEST_INSPECT_PASSPHRASE", "inspect-s3cret", 1)
        let viaEnvironment = await tsec(["inspect", p12, "--passphrase-env", "TSEC_TEST_INSPECT_PASSPHRASE", "--at", at])
        #expect(viaEnvironment.status == 0)
        #expect(viaEnvironment.output.stdout.contains("Private key (\(p12))\n  Key:            EC P-256, 256 bits\n  Belongs to:     certificate 1 (CN=alice)\n"))

        let withoutPassphrase = await tsec(["inspect", p12])
        #expect(withoutPassphrase.status == 2)
        #expect(withoutPassphrase.output.stderr.contains("is a PKCS#12 file protected by a passphrase: give it with --passphrase-env VAR or --passphrase-file FILE"))
        let wrongFile = try write("wrong", "guess\n")
        let wrong = await tsec(["inspect", p12, "--passphrase-file", wrongFile])
        #expect(wrong.status == 2)
        #expect(wrong.output.stderr.contains("the passphrase is wrong") && !wrong.output.stderr.contains("guess"))

        let open = (directory as NSString).appendingPathComponent("open.p12")
        _ = try shell("openssl pkcs12 -export -in '\(certificate)' -inkey '\(key)' -out '\(open)' -passout pass:")
        let emptyPassphrase = await tsec(["inspect", open, "--json"])
        #expect(emptyPassphrase.status == 0, "\(emptyPassphrase.output.stderr)")
        #expect(emptyPassphrase.output.stdout.contains("\"privateKey\""))
    }

    @Test("a PEM certificate with its --key: shown as an identity; a key that is not its certificate's, or options without a file, refused")
    func pemIdentity() async throws {
        let root = try pki.issueRoot(.certificateAuthority("Client Root"))
        let alice = try pki.issue(.client("alice"), by: root, algorithm: .rsa2048)
        let bob = try pki.issue(.client("bob"), by: root)
        let certificate = try write("alice.crt", alice.pemString)
        let key = try write("alice.key", alice.privateKeyPEM)
        let result = await tsec(["inspect", certificate, "--key", key])
        #expect(result.status == 0, "\(result.output.stderr)")
        #expect(result.output.stdout.contains("Private key (\(key))\n  Key:            RSA, 2048 bits\n  Belongs to:     certificate 1 (CN=alice)\n"))
        // A certificate alone is no identity.
        #expect(!(await tsec(["inspect", certificate])).output.stdout.contains("Private key"))

        let otherKey = try write("bob.key", bob.privateKeyPEM)
        let mismatch = await tsec(["inspect", certificate, "--key", otherKey])
        #expect(mismatch.status == 2)
        #expect(mismatch.output.stderr.contains("has a private key that does not belong to its certificate"))
        let passphraseFile = try write("passphrase", "x\n")
        let notPKCS12 = await tsec(["inspect", certificate, "--passphrase-file", passphraseFile])
        #expect(notPKCS12.status == 2)
        #expect(notPKCS12.output.stderr.contains("is not PKCS#12: a passphrase goes with a PKCS#12 file or an encrypted --key"))
        let server = await tsec(["inspect", "127.0.0.1:1", "--key", key])
        #expect(server.status == 2)
        #expect(server.output.stderr.contains("--key, --passphrase-env and --passphrase-file go with a file"))
        let twice = await tsec(["inspect", certificate, "--passphrase-file", passphraseFile, "--passphrase-env", "HOME"])
        #expect(twice.status == 2)
    }

    @Test("a folder is refused naming it (it is not taken for an identity)")
    func folder() async throws {
        let folder = (directory as NSString).appendingPathComponent("certificates")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = await tsec(["inspect", folder])
        #expect(result.status == 2)
        #expect(result.output.stderr == "tsec inspect: \(folder) cannot be read: it is a directory, not a file\n")
    }
}
