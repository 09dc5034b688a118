import Foundation
import PKIBuilder
import Testing
import TransportSecurity
import X509

@Suite("PKI builder")
struct PKIBuilderTests {
    @Test("serials count up from one and validity windows are relative to the fixed clock")
    func determinism() throws {
        let pki = PKI()
        #expect(pki.now == PKI.referenceDate)
        let root = try pki.issueRoot(.certificateAuthority("Root"))
        let leaf = try pki.issue(.server("a.example.test").valid(from: -3600, until: 7200), by: root)
        #expect(root.certificate.serialNumber == Certificate.SerialNumber(bytes: [1]))
        #expect(leaf.certificate.serialNumber == Certificate.SerialNumber(bytes: [2]))
        #expect(leaf.certificate.notValidBefore == pki.now.addingTimeInterval(-3600))
        #expect(leaf.certificate.notValidAfter == pki.now.addingTimeInterval(7200))
        #expect(leaf.certificate.issuer == root.certificate.subject)
    }

    @Test("profiles put CA flag, path length, EKU, key usage and SANs into the certificate")
    func extensions() throws {
        let pki = PKI()
        let root = try pki.issueRoot(.certificateAuthority("Root", pathLength: 1))
        #expect(try root.certificate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 1))
        #expect(try root.certificate.extensions.keyUsage?.keyCertSign == true)
        let leaf = try pki.issue(.server("svc", dnsNames: ["svc.example.test", "*.svc.example.test"], ipAddresses: ["192.0.2.7", "2001:db8::1"]), by: root)
        #expect(try leaf.certificate.extensions.basicConstraints == .notCertificateAuthority)
        #expect(try leaf.certificate.extensions.extendedKeyUsage?.contains(.serverAuth) == true)
        let names = try #require(try leaf.certificate.extensions.subjectAlternativeNames)
        #expect(names.count == 4)
        let client = try pki.issue(.client("alice"), by: root)
        #expect(try client.certificate.extensions.extendedKeyUsage?.contains(.clientAuth) == true)
        #expect(throws: PKIError.self) { try pki.issue(.server("bad", ipAddresses: ["300.1.1.1"]), by: root) }
    }

    @Test("re-issuing keeps or replaces the key and always changes the certificate")
    func reissue() throws {
        let pki = PKI()
        let root = try pki.issueRoot(.certificateAuthority("Root"))
        let leaf = try pki.issue(.server("r.example.test"), by: root)
        let same = try pki.reissue(leaf, by: root, newKey: false)
        let fresh = try pki.reissue(leaf, by: root, newKey: true)
        #expect(same.der != leaf.der)
        #expect(same.der.spkiPin == leaf.der.spkiPin)
        #expect(fresh.der.spkiPin != leaf.der.spkiPin)
        let selfSigned = try pki.issueSelfSigned(.server("s.example.test"))
        let resigned = try pki.reissue(selfSigned, by: nil, newKey: false)
        #expect(resigned.certificate.issuer == resigned.certificate.subject)
        #expect(resigned.der.spkiPin == selfSigned.der.spkiPin)
    }

    @Test("every key algorithm signs with its default signature algorithm", arguments: KeyAlgorithm.allCases)
    func algorithms(algorithm: KeyAlgorithm) throws {
        let pki = PKI()
        let root = try pki.issueRoot(.certificateAuthority("Root"), algorithm: algorithm)
        #expect(root.certificate.signatureAlgorithm == algorithm.defaultSignatureAlgorithm)
        #expect(root.certificate.publicKey.isValidSignature(root.certificate.signature, for: root.certificate))
        #expect(try root.privateKeyPEM.contains("PRIVATE KEY"))
    }

    @Test("PEM output parses back to the same certificates")
    func pemRoundTrip() throws {
        let lab = LabFixture.shared.lab
        let bundle = lab.chain(.legitimate).pemBundle
        #expect(try CertificateLoader.certificates(from: Array(bundle.utf8)) == lab.chain(.legitimate).map(\.der))
    }
}
