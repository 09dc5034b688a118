import Foundation
import PKIBuilder
import TestServers
import Testing
import TransportSecurity
import X509

@Suite("SPKI pins")
struct SPKIPinTests {
    @Test("the pin is SHA-256 over the whole SubjectPublicKeyInfo, as openssl computes it", arguments: KeyAlgorithm.allCases)
    func matchesOpenSSL(algorithm: KeyAlgorithm) throws {
        let pki = PKI()
        let certificate = try pki.issueSelfSigned(.server("pin.example.test"), key: KeyPair(generating: algorithm))
        let directory = try TemporaryDirectory()
        let file = try directory.write("cert.pem", text: certificate.pemString)
        let expected = try shell(
            "openssl x509 -in '\(file)' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"
        )
        #expect(certificate.der.spkiPin.description == "sha256/" + expected.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("keys without a certificate: a public key, a private key (its public half) and a certificate request give the pin openssl computes", arguments: KeyAlgorithm.allCases)
    func keyPins(algorithm: KeyAlgorithm) throws {
        let key = try KeyPair(generating: algorithm)
        let request = try CertificateSigningRequest(
            version: .v1,
            subject: DistinguishedName { CommonName("backup.example.test") },
            privateKey: key.privateKey,
            attributes: CertificateSigningRequest.Attributes(),
            signatureAlgorithm: algorithm.defaultSignatureAlgorithm
        )
        let directory = try TemporaryDirectory()
        let privateFile = try directory.write("backup.key", text: try key.privateKey.serializeAsPEM().pemString)
        let expected = try shell("openssl pkey -in '\(privateFile)' -pubout -outform der | openssl dgst -sha256 -binary | base64")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let bundle = [
            try key.publicKey.serializeAsPEM().pemString,
            try key.privateKey.serializeAsPEM().pemString,
            try request.serializeAsPEM().pemString,
        ].joined(separator: "\n")
        let entries = try KeyPins.pins(inPEM: bundle, source: "backup.pem")
        #expect(entries.map(\.kind) == ["public key", "private key", "certificate request"])
        #expect(entries.allSatisfy { $0.pin.description == "sha256/" + expected })
    }

    @Test("key files that give no pin say why: encrypted, not parsing, nothing pinnable")
    func keyPinFailures() {
        func failure(_ text: String) -> String {
            do {
                _ = try KeyPins.pins(inPEM: text, source: "key.pem")
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(failure(garbagePEMBlock("ENCRYPTED PRIVATE KEY"))
            == "key.pem gives no pin: the ENCRYPTED PRIVATE KEY block #1 is encrypted; give its public key (openssl pkey -pubout) or a certificate")
        #expect(failure(garbagePEMBlock("PUBLIC KEY")).hasPrefix("key.pem gives no pin: the PUBLIC KEY block #1 does not parse: "))
        #expect(failure(garbagePEMBlock("DH PARAMETERS")) == "key.pem contains no CERTIFICATE block")
        #expect(failure(garbagePEMBlock("PUBLIC KEY").replacingOccurrences(of: "-----END PUBLIC KEY-----\n", with: "")) == "key.pem is not valid PEM: the PUBLIC KEY block #1 has no END line (truncated?)")
    }

    @Test("sha256/ and bare base64 parse to the same pin")
    func parsing() throws {
        let pin = LabFixture.shared.lab.leaf.der.spkiPin
        #expect(try SPKIPin(pin.description) == pin)
        #expect(try SPKIPin(pin.base64) == pin)
        #expect(try SPKIPin("  SHA256/" + pin.base64 + "\n") == pin)
    }

    @Test(
        "malformed pins are rejected with the reason",
        arguments: [
            ("", PinParsingError.Reason.empty),
            ("sha256/", .empty),
            ("sha1/AAAAAAAAAAAAAAAAAAAAAAAAAAA=", .unsupportedAlgorithm("sha1")),
            ("sha256/not base64!", .notBase64),
            ("sha256/AAAA", .wrongLength(3)),
        ]
    )
    func malformed(text: String, reason: PinParsingError.Reason) {
        #expect(throws: PinParsingError(text: text, reason: reason)) { try SPKIPin(text) }
    }

    @Test("the error message names the text and the problem")
    func message() {
        let error = PinParsingError(text: "sha256/AAAA", reason: .wrongLength(3))
        #expect(error.description == "'sha256/AAAA' is not an SPKI pin: the digest is 3 bytes long, a SHA-256 digest is 32")
    }

    @Test("a re-issued certificate with the same key has the same pin; a new key does not")
    func keyIdentity() {
        let lab = LabFixture.shared.lab
        let sameKey = lab.chain(.reissuedSameKey)[0].der
        let newKey = lab.chain(.reissuedNewKey)[0].der
        #expect(sameKey != lab.leaf.der)
        #expect(sameKey.spkiPin == lab.leaf.der.spkiPin)
        #expect(sameKey.hasSamePublicKey(as: lab.leaf.der))
        #expect(newKey.spkiPin != lab.leaf.der.spkiPin)
    }

    @Test("pins encode as JSON strings and decode back")
    func codable() throws {
        let pin = LabFixture.shared.lab.root.der.spkiPin
        let data = try JSONEncoder().encode([pin])
        #expect(String(decoding: data, as: UTF8.self) == "[\"sha256\\/\(pin.base64.replacingOccurrences(of: "/", with: "\\/"))\"]")
        #expect(try JSONDecoder().decode([SPKIPin].self, from: data) == [pin])
    }
}

extension SPKIPinTests {
    @Test("bare base64 digests that contain '/' are not mistaken for a prefix")
    func bareBase64WithSlash() throws {
        let digest = [UInt8](repeating: 0xFF, count: 32)
        let base64 = Data(digest).base64EncodedString()
        #expect(base64.contains("/"))
        #expect(try SPKIPin(base64).digest == digest)
        #expect(try SPKIPin("sha256/" + base64).digest == digest)
    }
}
