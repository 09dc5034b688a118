import Foundation
import PKIBuilder
import SwiftASN1
import Testing
import TransportSecurity
import X509

/// Name constraints as the engine processes them (RFC 5280 §4.2.1.10): each subtree form,
/// self-issued intermediates, the host as a name, malformed extensions, and the cost bound.
@Suite("Name constraints")
struct NameConstraintsPolicyTests {
    let pki = LabFixture.shared.lab.pki

    /// A root, and an intermediate under it carrying `constraints`.
    func constrainedCA(_ constraints: NameConstraints, critical: Bool = true) throws -> (root: IssuedCertificate, ca: IssuedCertificate) {
        let root = try pki.issueRoot(.certificateAuthority("NC Root"))
        var profile = CertificateProfile.certificateAuthority("Constrained CA")
        profile.editExtensions = { try $0.append(Certificate.Extension(constraints, critical: critical)) }
        return (root, try pki.issue(profile, by: root))
    }

    func evaluate(
        _ leaf: IssuedCertificate,
        _ intermediates: [IssuedCertificate],
        root: IssuedCertificate,
        policy: TrustValidationPolicy
    ) async -> TrustEvaluation {
        await ServerTrust(
            chain: ([leaf] + intermediates).map(\.der),
            policy: policy,
            anchors: [root.der],
            anchorsOnly: true,
            systemStore: .empty,
            evaluationTime: pki.now
        ).evaluate()
    }

    func server(_ names: [String], ips: [String] = [], by issuer: IssuedCertificate) throws -> IssuedCertificate {
        try pki.issue(.server(names.first ?? "server", dnsNames: names, ipAddresses: ips), by: issuer)
    }

    static func range(_ address: [UInt8], _ mask: [UInt8]) -> ASN1OctetString { ASN1OctetString(contentBytes: ArraySlice(address + mask)) }

    @Test("DNS subtrees: permitted holds the name and everything under it, excluded refuses it")
    func dnsSubtrees() async throws {
        let (root, ca) = try constrainedCA(NameConstraints(permittedDNSDomains: ["example.test"], excludedDNSDomains: ["secret.example.test"]))
        let inside = try server(["api.example.test"], by: ca)
        #expect(await evaluate(inside, [ca], root: root, policy: .ssl("api.example.test")).isTrusted)
        let apex = try server(["example.test"], by: ca)
        #expect(await evaluate(apex, [ca], root: root, policy: .ssl("example.test")).isTrusted)

        let outside = try server(["api.other.test"], by: ca)
        let refused = await evaluate(outside, [ca], root: root, policy: .ssl("api.other.test"))
        #expect(refused.failures.map(\.code) == [.constraintViolation])
        #expect(refused.summary.contains("DNS:api.other.test is outside every permitted subtree (DNS:example.test)"))

        let excluded = try server(["db.secret.example.test"], by: ca)
        let refusedExcluded = await evaluate(excluded, [ca], root: root, policy: .ssl("db.secret.example.test"))
        #expect(refusedExcluded.summary.contains("inside the excluded subtree DNS:secret.example.test"))
        // Label boundaries: "notexample.test" is not under "example.test".
        let lookalike = try server(["notexample.test"], by: ca)
        #expect(await evaluate(lookalike, [ca], root: root, policy: .ssl("notexample.test")).isTrusted == false)
    }

    @Test("the host is a name too: a wildcard leaf cannot serve a name its CA excludes (CVE-2025-61727)")
    func hostAgainstExcludedSubtree() async throws {
        let (root, ca) = try constrainedCA(NameConstraints(excludedDNSDomains: ["bar.example.test"]))
        let wildcard = try server(["*.example.test"], by: ca)
        #expect(await evaluate(wildcard, [ca], root: root, policy: .ssl("foo.example.test")).isTrusted)
        let refused = await evaluate(wildcard, [ca], root: root, policy: .ssl("bar.example.test"))
        #expect(refused.outcome == .fatalFailure)
        #expect(refused.summary.contains("refuse the host bar.example.test"))
    }

    @Test("IP subtrees compare address and mask, per family")
    func ipSubtrees() async throws {
        let (root, ca) = try constrainedCA(
            NameConstraints(permittedIPRanges: [Self.range([192, 0, 2, 0], [255, 255, 255, 0])], excludedIPRanges: [Self.range([192, 0, 2, 128], [255, 255, 255, 128])])
        )
        let inside = try server([], ips: ["192.0.2.10"], by: ca)
        #expect(await evaluate(inside, [ca], root: root, policy: .ssl("192.0.2.10")).isTrusted)
        let excluded = try server([], ips: ["192.0.2.200"], by: ca)
        #expect(await evaluate(excluded, [ca], root: root, policy: .ssl("192.0.2.200")).summary.contains("IP:192.0.2.128/255.255.255.128"))
        let outside = try server([], ips: ["198.51.100.1"], by: ca)
        #expect(await evaluate(outside, [ca], root: root, policy: .ssl("198.51.100.1")).isTrusted == false)
        // An IPv6 address is a different form: IPv4 subtrees say nothing about it.
        let v6 = try server([], ips: ["2001:db8::1"], by: ca)
        #expect(await evaluate(v6, [ca], root: root, policy: .ssl("2001:db8::1")).isTrusted)
    }

    @Test("mailbox subtrees: a whole address (asterisks literal), a host, or a domain with a leading period")
    func emailSubtrees() async throws {
        func clientCertificate(_ mailbox: String, by ca: IssuedCertificate) throws -> IssuedCertificate {
            var profile = CertificateProfile.client("client")
            profile.editExtensions = { try $0.append(Certificate.Extension(SubjectAlternativeNames([.rfc822Name(mailbox)]), critical: false)) }
            return try pki.issue(profile, by: ca)
        }
        let cases: [(constraint: String, mailbox: String, allowed: Bool)] = [
            ("*@example.test", "*@example.test", true), ("*@example.test", "alice@example.test", false),
            ("example.test", "alice@example.test", true), ("example.test", "alice@mail.example.test", false),
            (".example.test", "alice@mail.example.test", true), (".example.test", "alice@example.test", false),
        ]
        for (constraint, mailbox, allowed) in cases {
            let (root, ca) = try constrainedCA(NameConstraints(permittedEmailAddresses: [constraint]))
            let evaluation = await evaluate(try clientCertificate(mailbox, by: ca), [ca], root: root, policy: .sslClient)
            #expect(evaluation.isTrusted == allowed, "\(constraint) / \(mailbox): \(evaluation.failures)")
        }
    }

    @Test("URI subtrees constrain the URI's host; directory-name subtrees its RDN prefix")
    func uriAndDirectorySubtrees() async throws {
        let (root, ca) = try constrainedCA(NameConstraints(permittedURIDomains: [".example.test"]))
        func withURI(_ uri: String) throws -> IssuedCertificate {
            var profile = CertificateProfile.server("api.example.test")
            profile.editExtensions = { _ = $0.update(try Certificate.Extension(SubjectAlternativeNames([.dnsName("api.example.test"), .uniformResourceIdentifier(uri)]), critical: false)) }
            return try pki.issue(profile, by: ca)
        }
        #expect(await evaluate(try withURI("https://user@www.example.test:8443/x"), [ca], root: root, policy: .ssl("api.example.test")).isTrusted)
        #expect(await evaluate(try withURI("https://example.org/"), [ca], root: root, policy: .ssl("api.example.test")).isTrusted == false)

        let organization = try DistinguishedName { OrganizationName("Example") }
        let (dnRoot, dnCA) = try constrainedCA(NameConstraints(permittedSubtrees: [.directoryName(organization)]))
        var inside = CertificateProfile.server("api.example.test")
        inside.organization = "Example"
        #expect(await evaluate(try pki.issue(inside, by: dnCA), [dnCA], root: dnRoot, policy: .ssl("api.example.test")).isTrusted)
        inside.organization = "Elsewhere"
        #expect(await evaluate(try pki.issue(inside, by: dnCA), [dnCA], root: dnRoot, policy: .ssl("api.example.test")).isTrusted == false)
    }

    @Test("directory-name subtrees compare names, not encodings: PrintableString and UTF8String, case and spaces are one name (an excluded O=Evil covers O=evil)")
    func directoryNamesCompareAsNames() async throws {
        func name(_ value: String, printable: Bool) throws -> DistinguishedName {
            let type = ASN1ObjectIdentifier.RDNAttributeType.organizationName
            let attribute = printable
                ? try RelativeDistinguishedName.Attribute(type: type, printableString: value)
                : RelativeDistinguishedName.Attribute(type: type, utf8String: value)
            return DistinguishedName([RelativeDistinguishedName(attribute)])
        }
        func leaf(_ subject: DistinguishedName, by ca: IssuedCertificate) throws -> IssuedCertificate {
            var profile = CertificateProfile.server("api.example.test")
            profile.subject = subject
            return try pki.issue(profile, by: ca)
        }
        // The CA may not issue for O=Evil (written as a PrintableString).
        let (root, ca) = try constrainedCA(NameConstraints(excludedSubtrees: [.directoryName(try name("Evil", printable: true))]))
        for variant in [try name("Evil", printable: false), try name("evil", printable: true), try name("  EVIL ", printable: false)] {
            let evaluation = await evaluate(try leaf(variant, by: ca), [ca], root: root, policy: .ssl("api.example.test"))
            #expect(evaluation.failures.map(\.code) == [.constraintViolation], "\(variant)")
        }
        #expect(await evaluate(try leaf(try name("Evilcorp", printable: true), by: ca), [ca], root: root, policy: .ssl("api.example.test")).isTrusted)
        // The CA may issue for O=Example only (a UTF8String): the same name as a PrintableString is inside.
        let (permittedRoot, permittedCA) = try constrainedCA(NameConstraints(permittedSubtrees: [.directoryName(try name("Example", printable: false))]))
        #expect(await evaluate(try leaf(try name("Example", printable: true), by: permittedCA), [permittedCA], root: permittedRoot, policy: .ssl("api.example.test")).isTrusted)
        #expect(await evaluate(try leaf(try name("Example Two", printable: true), by: permittedCA), [permittedCA], root: permittedRoot, policy: .ssl("api.example.test")).isTrusted == false)

        // The string types swift-certificates does not read are decoded here: BMPString (UCS-2),
        // UniversalString (UCS-4), TeletexString (Latin-1). A value that does not decode decides
        // nothing, and the path fails closed.
        func encoded(_ tag: UInt8, _ content: [UInt8]) throws -> DistinguishedName {
            let any = ASN1Any(derEncoded: try DER.parse([tag, UInt8(content.count)] + content))
            return DistinguishedName([RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: .RDNAttributeType.organizationName, value: any))])
        }
        let bmp: [UInt8] = "EVIL".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let universal: [UInt8] = "evil".unicodeScalars.flatMap { [UInt8(0), 0, 0, UInt8($0.value)] }
        for (label, subject) in [("BMPString", try encoded(0x1E, bmp)), ("UniversalString", try encoded(0x1C, universal)), ("TeletexString", try encoded(0x14, Array("Evil".utf8)))] {
            let evaluation = await evaluate(try leaf(subject, by: ca), [ca], root: root, policy: .ssl("api.example.test"))
            #expect(evaluation.failures.map(\.code) == [.constraintViolation], "\(label)")
        }
        #expect(await evaluate(try leaf(try encoded(0x14, Array("Example".utf8)), by: permittedCA), [permittedCA], root: permittedRoot, policy: .ssl("api.example.test")).isTrusted, "a TeletexString inside a UTF8String subtree")
        let ragged = await evaluate(try leaf(try encoded(0x1E, Array(bmp.dropLast())), by: permittedCA), [permittedCA], root: permittedRoot, policy: .ssl("api.example.test"))
        #expect(ragged.failures.map(\.code) == [.constraintViolation])
        #expect(ragged.summary.contains("cannot be compared with the permitted subtree"), "\(ragged.summary)")
    }

    @Test("forms that cannot be compared fail only when a name of that form is present")
    func unsupportedForms() async throws {
        let other = GeneralName.OtherName(typeID: [1, 3, 6, 1, 4, 1, 99999, 2], value: try ASN1Any(erasing: ASN1Null()))
        let (root, ca) = try constrainedCA(NameConstraints(excludedSubtrees: [.otherName(other)]))
        #expect(await evaluate(try server(["api.example.test"], by: ca), [ca], root: root, policy: .ssl("api.example.test")).isTrusted)
        var profile = CertificateProfile.server("api.example.test")
        profile.editExtensions = { _ = $0.update(try Certificate.Extension(SubjectAlternativeNames([.dnsName("api.example.test"), .otherName(other)]), critical: false)) }
        let refused = await evaluate(try pki.issue(profile, by: ca), [ca], root: root, policy: .ssl("api.example.test"))
        #expect(refused.summary.contains("cannot be compared with the excluded subtree"))
    }

    @Test("self-issued intermediates are exempt; the anchor's own constraints apply")
    func selfIssuedAndAnchor() async throws {
        var rootProfile = CertificateProfile.certificateAuthority("Constrained Root")
        rootProfile.editExtensions = { try $0.append(Certificate.Extension(NameConstraints(permittedDNSDomains: ["example.test"]), critical: true)) }
        let root = try pki.issueRoot(rootProfile)
        var rekey = CertificateProfile.certificateAuthority("Constrained Root")
        rekey.dnsNames = ["not-example.org"]
        let selfIssued = try pki.issue(rekey, by: root)
        #expect(await evaluate(try server(["api.example.test"], by: selfIssued), [selfIssued], root: root, policy: .ssl("api.example.test")).isTrusted)
        #expect(await evaluate(try server(["api.example.org"], by: root), [], root: root, policy: .ssl("api.example.org")).isTrusted == false)
    }

    @Test(
        "malformed or misplaced name constraints refuse the path",
        arguments: [
            (NameConstraints(), "malformed name constraints extension"),
            (NameConstraints(permittedDNSDomains: [".example.test"]), "starts with a period"),
            (NameConstraints(permittedIPRanges: [range([10, 0, 0, 0], [255, 0, 255, 0])]), "mask is not contiguous"),
            (NameConstraints(permittedIPRanges: [ASN1OctetString(contentBytes: [10, 0, 0, 0])]), "an address and a mask take 8 or 32"),
        ]
    )
    func malformedConstraints(constraints: NameConstraints, message: String) async throws {
        let (root, ca) = try constrainedCA(constraints)
        let evaluation = await evaluate(try server(["api.example.test"], by: ca), [ca], root: root, policy: .ssl("api.example.test"))
        #expect(evaluation.outcome == .fatalFailure)
        #expect(evaluation.summary.contains(message), "\(evaluation.summary)")
    }

    @Test("subtree lists that are present but both empty are refused")
    func bothListsEmpty() async throws {
        let root = try pki.issueRoot(.certificateAuthority("NC Root"))
        var profile = CertificateProfile.certificateAuthority("Empty NC CA")
        // SEQUENCE { [0] {} [1] {} }: both lists present, both empty.
        profile.editExtensions = { try $0.append(Certificate.Extension(oid: .X509ExtensionID.nameConstraints, critical: true, value: [0x30, 0x04, 0xA0, 0x00, 0xA1, 0x00])) }
        let ca = try pki.issue(profile, by: root)
        let evaluation = await evaluate(try server(["api.example.test"], by: ca), [ca], root: root, policy: .ssl("api.example.test"))
        #expect(evaluation.failures.map(\.code) == [.misissued])
        #expect(evaluation.summary.contains("subtree lists are both empty"))
    }

    @Test("name constraints in an end-entity certificate are refused; non-critical ones are honoured")
    func placementAndCriticality() async throws {
        let root = try pki.issueRoot(.certificateAuthority("Plain Root"))
        var leafProfile = CertificateProfile.server("api.example.test")
        leafProfile.editExtensions = { try $0.append(Certificate.Extension(NameConstraints(permittedDNSDomains: ["example.test"]), critical: false)) }
        let evaluation = await evaluate(try pki.issue(leafProfile, by: root), [], root: root, policy: .ssl("api.example.test"))
        #expect(evaluation.failures.map(\.code) == [.misissued])
        #expect(evaluation.summary.contains("belong in CA certificates only"))

        let (softRoot, softCA) = try constrainedCA(NameConstraints(permittedDNSDomains: ["example.test"]), critical: false)
        #expect(await evaluate(try server(["api.other.test"], by: softCA), [softCA], root: softRoot, policy: .ssl("api.other.test")).isTrusted == false)
    }

    @Test("thousands of names against thousands of subtrees are refused before any comparison")
    func comparisonBound() async throws {
        let names = (0..<600).map { "host\($0).example.test" }
        let (root, ca) = try constrainedCA(NameConstraints(permittedDNSDomains: (0..<500).map { "zone\($0).example.test" }))
        let leaf = try pki.issue(.server(names[0], dnsNames: names), by: ca)
        let clock = ContinuousClock()
        let started = clock.now
        let evaluation = await evaluate(leaf, [ca], root: root, policy: .ssl(names[0]))
        #expect(clock.now - started < .seconds(1))
        #expect(evaluation.failures.map(\.code) == [.workBudgetExceeded])
        #expect(evaluation.summary.contains("more than 250000 comparisons"))

        let policy = NameConstraintsPolicy(host: nil, maximumComparisons: 10)
        #expect(policy.maximumComparisons == 10)
        #expect(NameConstraintsPolicy.defaultMaximumComparisons == 250_000)
    }
}
