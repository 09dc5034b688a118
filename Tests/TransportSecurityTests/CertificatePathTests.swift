import PKIBuilder
import SwiftASN1
import Testing
import TransportSecurity
import X509

/// The path the policies share: extensions read through it equal swift-certificates' own
/// decoding, a malformed extension fails the same way every time it is read, and name syntax
/// is judged byte by byte as RFC 1034/1123 say.
@Suite("Certificate paths and name syntax")
struct CertificatePathTests {
    let fixture = LabFixture.shared
    var pki: PKI { fixture.lab.pki }

    @Test("a path certificate reads the same extensions as swift-certificates, and knows a self-issued certificate")
    func decodedExtensions() throws {
        let root = try pki.issueRoot(.certificateAuthority("Path Root"))
        let leaf = try pki.issue(.server("path.example.test"), by: root)
        for issued in [root, leaf] {
            let certificate = issued.certificate
            let wrapped = PathCertificate(certificate)
            #expect(try wrapped.subjectAlternativeNames() == certificate.extensions.subjectAlternativeNames)
            #expect(try wrapped.basicConstraints() == certificate.extensions.basicConstraints)
            #expect(try wrapped.keyUsage() == certificate.extensions.keyUsage)
            #expect(try wrapped.extendedKeyUsage() == certificate.extensions.extendedKeyUsage)
            #expect(try wrapped.authorityKeyIdentifier() == certificate.extensions.authorityKeyIdentifier)
            #expect(try wrapped.subjectKeyIdentifier() == certificate.extensions.subjectKeyIdentifier)
            #expect(try wrapped.nameConstraints() == certificate.extensions.nameConstraints)
            #expect(wrapped.subjectText == String(describing: certificate.subject))
        }
        #expect(PathCertificate(root.certificate).isSelfIssued)
        #expect(!PathCertificate(leaf.certificate).isSelfIssued)
        #expect(PathCertificate(root.certificate).hasCriticalExtension(.X509ExtensionID.basicConstraints))
        #expect(!PathCertificate(leaf.certificate).hasCriticalExtension(.X509ExtensionID.subjectAlternativeName))
    }

    @Test("a malformed extension throws on every read, not only the first")
    func malformedExtensionStaysMalformed() throws {
        let root = try pki.issueRoot(.certificateAuthority("Path Root"))
        var profile = CertificateProfile.server("path.example.test")
        profile.editExtensions = { extensions in
            _ = extensions.update(Certificate.Extension(oid: .X509ExtensionID.subjectAlternativeName, critical: false, value: [0x30, 0x03, 0x82]))
        }
        let wrapped = PathCertificate(try pki.issue(profile, by: root).certificate)
        #expect(throws: (any Error).self) { try wrapped.subjectAlternativeNames() }
        #expect(throws: (any Error).self) { try wrapped.subjectAlternativeNames() }
        #expect(try wrapped.basicConstraints() == wrapped.certificate.extensions.basicConstraints)
    }

    @Test(
        "DNS names in the preferred name syntax are well formed",
        arguments: [
            "a", "a-b.c", "*.example.com", "xn--bcher-kva.example", "A1.Example.COM", String(repeating: "a", count: 63) + ".test",
            Array(repeating: String(repeating: "a", count: 63), count: 3).joined(separator: ".") + "." + String(repeating: "b", count: 61),
        ]
    )
    func wellFormedNames(name: String) {
        #expect(SubjectAltNameSyntaxPolicy.isWellFormed(.dnsName(name)))
    }

    @Test(
        "DNS names outside the preferred name syntax are not",
        arguments: [
            "", "*", "*.", "*.*.example", "a*b.example", "-a.example", "a-.example", "a..b", ".a", "a.", "a_b.example",
            "é.example", "a b.example", String(repeating: "a", count: 64) + ".test",
            Array(repeating: String(repeating: "a", count: 63), count: 3).joined(separator: ".") + "." + String(repeating: "b", count: 62),
        ]
    )
    func malformedNames(name: String) {
        #expect(!SubjectAltNameSyntaxPolicy.isWellFormed(.dnsName(name)))
    }
}
