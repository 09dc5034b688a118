import Foundation
import PKIBuilder
import SwiftASN1
import TestServers
import Testing
import TransportSecurity
import X509

/// The engine's web-PKI policies, one rule at a time, each with certificates from the PKI
/// builder: the conforming case is trusted and each mis-issued variant is refused with the
/// failure code and a sentence that names the rule.
@Suite("Web PKI policies")
struct WebPKIPolicyTests {
    let fixture = LabFixture.shared
    var lab: TrustLab { fixture.lab }
    var pki: PKI { lab.pki }

    /// Evaluates `leaf` (and `intermediates`) against `root` as the only anchor.
    func evaluate(
        _ leaf: IssuedCertificate,
        _ intermediates: [IssuedCertificate] = [],
        root: IssuedCertificate,
        host: String? = nil,
        policy: TrustValidationPolicy? = nil
    ) async -> TrustEvaluation {
        await ServerTrust(
            chain: ([leaf] + intermediates).map(\.der),
            policy: policy ?? .ssl(host ?? lab.host),
            anchors: [root.der],
            anchorsOnly: true,
            systemStore: .empty,
            evaluationTime: pki.now
        ).evaluate()
    }

    func root(_ name: String = "Policy Root", edit: (@Sendable (inout Certificate.Extensions) throws -> Void)? = nil) throws -> IssuedCertificate {
        var profile = CertificateProfile.certificateAuthority(name)
        profile.editExtensions = edit
        return try pki.issueRoot(profile)
    }

    func server(_ edit: (inout CertificateProfile) -> Void = { _ in }, by issuer: IssuedCertificate) throws -> IssuedCertificate {
        var profile = CertificateProfile.server(lab.host)
        edit(&profile)
        return try pki.issue(profile, by: issuer)
    }

    func expectRefused(_ evaluation: TrustEvaluation, _ code: TrustFailure.Code, mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(evaluation.outcome == .fatalFailure, sourceLocation: sourceLocation)
        #expect(evaluation.failures.map(\.code).contains(code), "\(evaluation.failures)", sourceLocation: sourceLocation)
        #expect(evaluation.summary.contains(text), "\(evaluation.summary)", sourceLocation: sourceLocation)
    }

    // MARK: - Key identifiers

    @Test("key identifiers: issued certificates need an AKI, CAs an SKI; a CA's AKI holds only a matching keyIdentifier")
    func keyIdentifiers() async throws {
        let root = try root()
        #expect(await evaluate(try server(by: root), root: root).isTrusted)

        let noAKI = try server({ $0.editExtensions = { _ = $0.remove(.X509ExtensionID.authorityKeyIdentifier) } }, by: root)
        expectRefused(await evaluate(noAKI, root: root), .misissued, mentioning: "has no authority key identifier")

        var bareCA = CertificateProfile.certificateAuthority("No SKI CA")
        bareCA.editExtensions = { _ = $0.remove(.X509ExtensionID.subjectKeyIdentifier) }
        let noSKI = try pki.issue(bareCA, by: root)
        let leaf = try server(by: noSKI)
        expectRefused(await evaluate(leaf, [noSKI], root: root), .misissued, mentioning: "without a subject key identifier")

        let serialInAKI = try self.root("Root With Issuer Serial") { extensions in
            let keyIdentifier = try extensions.authorityKeyIdentifier?.keyIdentifier
            _ = extensions.update(
                try Certificate.Extension(
                    AuthorityKeyIdentifier(keyIdentifier: keyIdentifier, authorityCertSerialNumber: Certificate.SerialNumber(bytes: [7])),
                    critical: false
                )
            )
        }
        expectRefused(await evaluate(try server(by: serialInAKI), root: serialInAKI), .misissued, mentioning: "names an issuer or serial number")

        let mismatched = try self.root("Root With Foreign AKI") { extensions in
            _ = extensions.update(try Certificate.Extension(AuthorityKeyIdentifier(keyIdentifier: [1, 2, 3, 4]), critical: false))
        }
        expectRefused(await evaluate(try server(by: mismatched), root: mismatched), .misissued, mentioning: "differs from its subject key identifier")

        let noKeyIdentifier = try self.root("Root With Empty AKI") { extensions in
            _ = extensions.update(try Certificate.Extension(AuthorityKeyIdentifier(), critical: false))
        }
        expectRefused(await evaluate(try server(by: noKeyIdentifier), root: noKeyIdentifier), .misissued, mentioning: "lacks the keyIdentifier field")

        // A root needs no AKI at all: it is the anchor.
        let rootWithoutAKI = try self.root("Root Without AKI") { _ = $0.remove(.X509ExtensionID.authorityKeyIdentifier) }
        #expect(await evaluate(try server(by: rootWithoutAKI), root: rootWithoutAKI).isTrusted)
    }

    // MARK: - Subject and subjectAltName form

    @Test("subjects: a CA's is not empty; an empty leaf subject needs a critical SAN, a non-empty one a non-critical SAN")
    func subjectNames() async throws {
        let root = try root()
        var emptyCA = CertificateProfile.certificateAuthority("unused")
        emptyCA.subject = DistinguishedName()
        let anonymousCA = try pki.issue(emptyCA, by: root)
        expectRefused(await evaluate(try server(by: anonymousCA), [anonymousCA], root: root), .misissued, mentioning: "has an empty subject; a CA's subject")

        let criticalSAN: @Sendable (inout Certificate.Extensions) throws -> Void = { extensions in
            _ = extensions.update(try Certificate.Extension(SubjectAlternativeNames([.dnsName("api.example.test")]), critical: true))
        }
        let emptyNonCritical = try server({ $0.subject = DistinguishedName() }, by: root)
        expectRefused(await evaluate(emptyNonCritical, root: root), .misissued, mentioning: "must be present and critical")
        let emptyCritical = try server({ $0.subject = DistinguishedName(); $0.editExtensions = criticalSAN }, by: root)
        #expect(await evaluate(emptyCritical, root: root).isTrusted)
        let namedCritical = try server({ $0.editExtensions = criticalSAN }, by: root)
        expectRefused(await evaluate(namedCritical, root: root), .misissued, mentioning: "must not be critical")
    }

    @Test(
        "malformed subjectAltName entries refuse the path",
        arguments: [
            GeneralName.dnsName("foo_bar.example.test"), .dnsName(".example.test"), .dnsName("example.test."),
            .dnsName("-api.example.test"), .dnsName("ba*.example.test"),
            .ipAddress(ASN1OctetString(contentBytes: [192, 0, 2, 0, 255, 255, 255, 0])),
            .rfc822Name("invalid@address@example.test"), .rfc822Name("nobody"),
        ]
    )
    func malformedSubjectAltNames(entry: GeneralName) async throws {
        let root = try root()
        let leaf = try server({ profile in
            profile.editExtensions = { extensions in
                _ = extensions.update(try Certificate.Extension(SubjectAlternativeNames([.dnsName("api.example.test"), entry]), critical: false))
            }
        }, by: root)
        expectRefused(await evaluate(leaf, root: root), .malformedCertificate, mentioning: "malformed subjectAltName entry")
        #expect(SubjectAltNameSyntaxPolicy.isWellFormed(.dnsName("*.xn--bcher-kva.example")))
        #expect(SubjectAltNameSyntaxPolicy.isWellFormed(.ipAddress(ASN1OctetString(contentBytes: [192, 0, 2, 1]))))
    }

    // MARK: - Serial numbers, AIA, keys, versions

    @Test("serial numbers: zero and more than 20 octets are refused, 20 octets are fine")
    func serialNumbers() async throws {
        let root = try root()
        for (bytes, accepted) in [([UInt8](repeating: 0x11, count: 20), true), ([0], false), ([UInt8](repeating: 0x11, count: 21), false)] {
            let leaf = try server({ $0.serialNumberBytes = bytes }, by: root)
            let evaluation = await evaluate(leaf, root: root)
            if accepted {
                #expect(evaluation.isTrusted, "\(evaluation.failures)")
            } else {
                expectRefused(evaluation, .misissued, mentioning: "serial number")
            }
        }
    }

    @Test("an authority information access extension must hold at least one access description")
    func authorityInformationAccess() async throws {
        let root = try root()
        func withAccess(_ descriptions: [AuthorityInformationAccess.AccessDescription]) throws -> IssuedCertificate {
            try server({ profile in
                profile.editExtensions = { try $0.append(Certificate.Extension(AuthorityInformationAccess(descriptions), critical: false)) }
            }, by: root)
        }
        let ocsp = AuthorityInformationAccess.AccessDescription(method: .ocspServer, location: .uniformResourceIdentifier("http://ocsp.example.test"))
        #expect(await evaluate(try withAccess([ocsp]), root: root).isTrusted)
        expectRefused(await evaluate(try withAccess([]), root: root), .misissued, mentioning: "no access description")
    }

    @Test("RSA keys: not a whole number of bytes is refused, read from the modulus itself; under 2048 bits does not even load")
    func rsaKeySizes() async throws {
        let root = try root()
        let odd = try pki.issue(.server(lab.host), by: root, key: try KeyPair(rsaPrivateKeyPEM: try shell("openssl genrsa 2052 2>/dev/null")))
        #expect(CertificateDetails(odd.der).keyBits == 2052)
        expectRefused(await evaluate(odd, root: root), .weakKey, mentioning: "not a whole number of bytes")

        let weak = try pki.issue(.server(lab.host), by: root, key: try KeyPair(rsaPrivateKeyPEM: try shell("openssl genrsa 1024 2>/dev/null")))
        #expect(throws: CertificateLoadingError.self) { try DERCertificate(derBytes: weak.derBytes) }

        let strong = try pki.issue(.server(lab.host), by: root, algorithm: .rsa2048)
        #expect(await evaluate(strong, root: root).isTrusted)
    }

    @Test("basic constraints: issuers are critical-cA version 3 certificates; self-issued intermediates do not count for pathLen")
    func basicConstraints() async throws {
        let root = try root()
        var nonCritical = CertificateProfile.certificateAuthority("Non-critical BC CA")
        nonCritical.editExtensions = { _ = $0.update(try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: false)) }
        let softCA = try pki.issue(nonCritical, by: root)
        expectRefused(await evaluate(try server(by: softCA), [softCA], root: root), .misissued, mentioning: "basic constraints extension is not critical")

        var version1 = CertificateProfile.certificateAuthority("Version 1 CA")
        version1.version = .v1
        let oldCA = try pki.issue(version1, by: root)
        expectRefused(await evaluate(try server(by: oldCA), [oldCA], root: root), .constraintViolation, mentioning: "version 1 certificate, which cannot be a CA")

        var version1WithExtensions = CertificateProfile.server(lab.host)
        version1WithExtensions.version = .v1
        version1WithExtensions.editExtensions = { try $0.append(Certificate.Extension(SubjectAlternativeNames([.dnsName("api.example.test")]), critical: false)) }
        let malformed = try pki.issue(version1WithExtensions, by: root)
        expectRefused(await evaluate(malformed, root: root), .malformedCertificate, mentioning: "with extensions, which only version 3")

        // pathLen 0 allows no intermediate below, except a self-issued one (a CA re-keying).
        let constrained = try pki.issue(.certificateAuthority("Constrained CA", pathLength: 0), by: root)
        let rekeyed = try pki.issue(.certificateAuthority("Constrained CA"), by: constrained)
        #expect(await evaluate(try server(by: rekeyed), [rekeyed, constrained], root: root).isTrusted)
        let sub = try pki.issue(.certificateAuthority("Sub CA"), by: constrained)
        expectRefused(await evaluate(try server(by: sub), [sub, constrained], root: root), .constraintViolation, mentioning: "allows 0 intermediate CAs below it")

        // The maximum path length does not count the self-issued intermediate either.
        var trust = ServerTrust(chain: [try server(by: rekeyed), rekeyed, constrained].map(\.der), policy: .ssl(lab.host), anchors: [root.der], anchorsOnly: true, systemStore: .empty, evaluationTime: pki.now)
        trust.limits.maximumPathLength = 3
        #expect(await trust.evaluate().isTrusted)
    }

    // MARK: - Leaf and EKU

    @Test("a leaf that is not a CA may not assert keyCertSign")
    func leafKeyCertSign() async throws {
        let root = try root()
        let leaf = try server({ $0.keyUsage = KeyUsage(digitalSignature: true, keyCertSign: true) }, by: root)
        expectRefused(await evaluate(leaf, root: root), .misissued, mentioning: "asserts keyCertSign")
    }

    @Test("an intermediate's EKU, when present, must allow the TLS role; the anchor's is not read")
    func extendedKeyUsageChaining() async throws {
        let root = try root()
        func intermediate(_ usages: [ExtendedKeyUsage.Usage]) throws -> IssuedCertificate {
            var profile = CertificateProfile.certificateAuthority("EKU CA \(usages)")
            profile.extendedKeyUsages = usages
            return try pki.issue(profile, by: root)
        }
        let email = try intermediate([.emailProtection])
        expectRefused(await evaluate(try server(by: email), [email], root: root), .extendedKeyUsage, mentioning: "is a CA that may not issue for TLS servers")
        for usages in [[ExtendedKeyUsage.Usage.serverAuth], [.any]] {
            let allowed = try intermediate(usages)
            #expect(await evaluate(try server(by: allowed), [allowed], root: root).isTrusted)
        }
        var restrictedRoot = CertificateProfile.certificateAuthority("Email Root")
        restrictedRoot.extendedKeyUsages = [.emailProtection]
        let emailRoot = try pki.issueRoot(restrictedRoot)
        #expect(await evaluate(try server(by: emailRoot), root: emailRoot).isTrusted)
    }

    // MARK: - Host names

    @Test("wildcards: a whole left-most label over a suffix that is not an ICANN public suffix")
    func wildcards() async throws {
        let root = try root()
        func leaf(_ pattern: String) throws -> IssuedCertificate { try pki.issue(.server(pattern, dnsNames: [pattern]), by: root) }
        #expect(await evaluate(try leaf("*.example.co.uk"), root: root, host: "api.example.co.uk").isTrusted)
        // The private section's suffixes take wildcards (PublicSuffixWildcardTests has them all).
        #expect(await evaluate(try leaf("*.s3.amazonaws.com"), root: root, host: "bucket.s3.amazonaws.com").isTrusted)
        for (pattern, host) in [("*.co.uk", "example.co.uk"), ("*.com", "example.com")] {
            let evaluation = await evaluate(try leaf(pattern), root: root, host: host)
            #expect(evaluation.failures.map(\.code) == [.hostnameMismatch], "\(pattern)")
            #expect(evaluation.summary.contains("a wildcard over the public suffix"))
        }
        // Without a public suffix list, a wildcard needs two labels after it.
        let fallback = SubjectAltNameHostPolicy(host: ServerHost("api.example.co.uk"), publicSuffixes: nil)
        #expect(fallback.matches(certificateName: "*.example.co.uk", host: "api.example.co.uk"))
        #expect(!fallback.matches(certificateName: "*.com", host: "example.com"))
        let listed = SubjectAltNameHostPolicy(host: ServerHost("a.b.example"), publicSuffixes: PublicSuffixList(text: "example\nb.example\n"))
        #expect(!listed.matches(certificateName: "*.b.example", host: "a.b.example"))
        #expect(!listed.matches(certificateName: "*", host: "com"))
        #expect(!listed.matches(certificateName: "**.example", host: "a.b.example"))
        #expect(listed.matches(certificateName: "A.B.Example", host: "a.b.example"))
    }

    @Test("an internationalized host is compared as given, and its mismatch names the ASCII form to use")
    func internationalizedHost() async throws {
        let root = try root()
        let leaf = try pki.issue(.server("xn--bcher-kva.example", dnsNames: ["xn--bcher-kva.example"]), by: root)
        #expect(await evaluate(leaf, root: root, host: "xn--bcher-kva.example").isTrusted)
        let unicode = await evaluate(leaf, root: root, host: "bücher.example")
        #expect(unicode.failures.map(\.code) == [.hostnameMismatch])
        #expect(unicode.summary.contains("certificates name it xn--bcher-kva.example"))
        let ascii = await evaluate(leaf, root: root, host: "other.example")
        #expect(!ascii.summary.contains("not ASCII"))
    }

    @Test("internationalized public suffixes, which the list writes in Unicode, hold in the ASCII form certificates use")
    func internationalizedPublicSuffixes() throws {
        let list = PublicSuffixList(text: "cn\n公司.cn\n*.ελ\n!www.ελ\n")
        #expect(list.isPublicSuffix("xn--55qx5d.cn"))
        #expect(list.isPublicSuffix("公司.cn"))
        #expect(list.isPublicSuffix("foo.xn--qxam"), "a wildcard rule (ελ is xn--qxam)")
        #expect(!list.isPublicSuffix("www.xn--qxam"), "an exception rule")
        #expect(!list.isPublicSuffix("example.xn--55qx5d.cn"))
        let policy = SubjectAltNameHostPolicy(host: ServerHost("shop.xn--55qx5d.cn"), publicSuffixes: list)
        #expect(!policy.matches(certificateName: "*.xn--55qx5d.cn", host: "shop.xn--55qx5d.cn"))
        #expect(policy.matches(certificateName: "*.example.xn--55qx5d.cn", host: "a.example.xn--55qx5d.cn"))
        // The compiled-in list holds the same rule, in both forms.
        #expect(PublicSuffixList.bundled.isPublicSuffix("xn--55qx5d.cn"))
    }

    @Test(
        "common names that read as a host or address must be well formed",
        arguments: [
            ("0xC0A80101", "an IP address not in canonical form (192.168.1.1)"),
            ("192.168.001.001", "an IP address not in canonical form"),
            ("2001:DB8::1", "an IP address not in canonical form (2001:db8::1)"),
            ("2001:db8:0:0:0:0:0:1", "an IP address not in canonical form"),
            ("test-測試.example.test", "not in ASCII"),
            ("API.example.test", "not an exact copy of the subjectAltName api.example.test"),
        ]
    )
    func commonNames(commonName: String, problem: String) async throws {
        let root = try root()
        let leaf = try pki.issue(.server(commonName, dnsNames: ["api.example.test"]), by: root)
        expectRefused(await evaluate(leaf, root: root), .misissued, mentioning: problem)
    }

    @Test("descriptive and other well-formed common names are left alone; two common names are refused")
    func commonNamesAccepted() async throws {
        let root = try root()
        for commonName in ["Payments API", "other.example.test", "192.168.1.1", "2001:db8::1", "EE"] {
            let leaf = try pki.issue(.server(commonName, dnsNames: ["api.example.test"]), by: root)
            #expect(await evaluate(leaf, root: root).isTrusted, "\(commonName)")
        }
        let twoNames = try server({ $0.subject = try! DistinguishedName { CommonName("api.example.test"); CommonName("www.example.test") } }, by: root)
        expectRefused(await evaluate(twoNames, root: root), .misissued, mentioning: "has 2 common names")
    }

    // MARK: - Validity

    @Test("validity is compared in whole seconds")
    func validityGranularity() async throws {
        let root = try root()
        let leaf = try pki.issue(CertificateProfile.server(lab.host).valid(from: -PKI.day, until: 0), by: root)
        func evaluate(at offset: TimeInterval) async -> TrustEvaluation {
            await ServerTrust(chain: [leaf.der], policy: .ssl(lab.host), anchors: [root.der], anchorsOnly: true, systemStore: .empty, evaluationTime: pki.now.addingTimeInterval(offset)).evaluate()
        }
        #expect(await evaluate(at: 0.5).isTrusted)
        #expect(await evaluate(at: 1).failures.map(\.code) == [.expired])
    }
}
