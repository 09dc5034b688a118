import Foundation
import PKIBuilder
import SwiftASN1
import Testing
import TransportSecurity
import X509

@Suite("Server trust evaluation")
struct ServerTrustTests {
    let fixture = LabFixture.shared
    var lab: TrustLab { fixture.lab }

    @Test("a CA-issued chain is trusted, with the path leaf → intermediate → root")
    func legitimateChain() async {
        let evaluation = await fixture.trust(.legitimate).evaluate()
        #expect(evaluation.outcome == .trusted)
        #expect(evaluation.path.map(\.subjectSummary) == [lab.leaf, lab.intermediate, lab.root].map(\.der.subjectSummary))
        #expect(evaluation.anchor == lab.root.der)
        #expect(evaluation.failures.isEmpty)
    }

    @Test("extra and out-of-order certificates in the chain do not matter")
    func outOfOrderChain() async {
        let noise = try! fixture.lab.pki.issueRoot(.certificateAuthority("Unrelated CA"))
        let evaluation = await fixture.trust(chain: [lab.leaf, noise, lab.root, lab.intermediate]).evaluate()
        #expect(evaluation.isTrusted)
        #expect(evaluation.path.count == 3)
    }

    @Test("an expired leaf is a recoverable failure naming the date")
    func expired() async {
        let evaluation = await fixture.trust(.expired).evaluate()
        #expect(evaluation.outcome == .recoverableFailure)
        #expect(evaluation.failures.map(\.code) == [.expired])
        #expect(evaluation.summary.contains("expired on"))
    }

    @Test("a not-yet-valid leaf is a recoverable failure")
    func notYetValid() async {
        let evaluation = await fixture.trust(.notYetValid).evaluate()
        #expect(evaluation.outcome == .recoverableFailure)
        #expect(evaluation.failures.map(\.code) == [.notYetValid])
    }

    @Test("an expired anchor fails the path too")
    func expiredAnchor() async throws {
        let pki = lab.pki
        let root = try pki.issueRoot(.certificateAuthority("Old Root").valid(from: -800 * PKI.day, until: -1 * PKI.day))
        let leaf = try pki.issue(.server(lab.host), by: root)
        let evaluation = await fixture.trust(chain: [leaf], anchors: [root]).evaluate()
        #expect(evaluation.failures.map(\.code) == [.expired])
        #expect(evaluation.failures.first?.certificate == root.der.subjectSummary)
    }

    @Test("a wrong host is a recoverable hostname mismatch listing the names")
    func wrongHost() async {
        let evaluation = await fixture.trust(.wrongHost).evaluate()
        #expect(evaluation.outcome == .recoverableFailure)
        #expect(evaluation.failures.map(\.code) == [.hostnameMismatch])
        #expect(evaluation.summary.contains("other.example.test"))
    }

    @Test("expired and wrong host together are both reported")
    func severalFailures() async throws {
        let leaf = try lab.pki.issue(.server("other.example.test").valid(from: -100 * PKI.day, until: -PKI.day), by: lab.intermediate)
        let evaluation = await fixture.trust(chain: [leaf, lab.intermediate]).evaluate()
        #expect(Set(evaluation.failures.map(\.code)) == [.expired, .hostnameMismatch])
    }

    @Test("basicX509 does not check the host")
    func basicX509IgnoresHost() async {
        #expect(await fixture.trust(.wrongHost, policy: .basicX509).evaluate().isTrusted)
        #expect(await fixture.trust(.wrongHost, policy: .ssl(host: nil)).evaluate().isTrusted)
    }

    @Test("an untrusted root is recoverable and named")
    func untrustedRoot() async throws {
        let rogueChain = lab.chain(.untrustedRoot) + [lab.rogueRoot]
        let evaluation = await fixture.trust(chain: rogueChain).evaluate()
        #expect(evaluation.outcome == .recoverableFailure)
        #expect(evaluation.failures.map(\.code) == [.untrustedRoot])
        #expect(evaluation.failures.first?.certificate == lab.rogueRoot.der.subjectSummary)
    }

    @Test("a missing intermediate is reported as a missing issuer")
    func missingIntermediate() async {
        let evaluation = await fixture.trust(chain: [lab.leaf]).evaluate()
        #expect(evaluation.outcome == .recoverableFailure)
        #expect(evaluation.failures.map(\.code) == [.missingIssuer])
        #expect(evaluation.summary.contains("TransportSecurity Lab Issuing CA"))
    }

    @Test("a self-signed leaf not among the anchors is an untrusted root")
    func selfSigned() async {
        let evaluation = await fixture.trust(.selfSigned).evaluate()
        #expect(evaluation.failures.map(\.code) == [.untrustedRoot])
    }

    @Test("a forged signature is a fatal failure")
    func badSignature() async throws {
        // Same issuer name, different key: the intermediate's signature cannot verify.
        let impostor = try lab.pki.issueRoot(.certificateAuthority("TransportSecurity Lab Issuing CA"))
        let forged = try lab.pki.issue(.server(lab.host), by: impostor)
        let evaluation = await fixture.trust(chain: [forged, lab.intermediate]).evaluate()
        #expect(evaluation.outcome == .fatalFailure)
        #expect(evaluation.failures.map(\.code) == [.badSignature])
    }

    @Test("a leaf that is itself an anchor is trusted as a path of one, dates and host still checked")
    func leafAsAnchor() async throws {
        let trusted = await fixture.trust(chain: [lab.selfSigned], anchors: [lab.selfSigned]).evaluate()
        #expect(trusted.isTrusted)
        #expect(trusted.path == [lab.selfSigned.der])

        let wrongHost = await fixture.trust(chain: [lab.selfSigned], host: "other.example.test", anchors: [lab.selfSigned]).evaluate()
        #expect(wrongHost.failures.map(\.code) == [.hostnameMismatch])

        let old = try lab.pki.issueSelfSigned(.server(lab.host).valid(from: -50 * PKI.day, until: -PKI.day))
        let expired = await fixture.trust(chain: [old], anchors: [old]).evaluate()
        #expect(expired.failures.map(\.code) == [.expired])
    }

    @Test("a CA-issued leaf can be pinned as the only anchor")
    func issuedLeafAsAnchor() async {
        let evaluation = await fixture.trust(chain: [lab.leaf, lab.intermediate], anchors: [lab.leaf]).evaluate()
        #expect(evaluation.isTrusted)
        #expect(evaluation.path == [lab.leaf.der])
    }

    @Test("anchors-only off adds the anchors to the system store")
    func anchorsNotOnly() async {
        var trust = fixture.trust(chain: lab.chain(.untrustedRoot), anchors: [lab.rogueRoot])
        #expect(await trust.evaluate().isTrusted)
        // Only the rogue root: the legitimate chain is no longer trusted …
        trust.chain = fixture.chain(.legitimate)
        #expect(await trust.evaluate().isTrusted == false)
        // … until the system store is added back.
        trust.anchorsOnly = false
        #expect(await trust.evaluate().isTrusted)
    }

    @Test("no common-name fallback: a leaf without subjectAltName names no host")
    func noCommonNameFallback() async throws {
        var profile = CertificateProfile.server(lab.host)
        profile.dnsNames = []
        let leaf = try lab.pki.issue(profile, by: lab.intermediate)
        let evaluation = await fixture.trust(chain: [leaf, lab.intermediate]).evaluate()
        #expect(evaluation.failures.map(\.code) == [.hostnameMismatch])
        #expect(evaluation.summary.contains("common name is not used"))
    }

    @Test("a leaf whose EKU lacks serverAuth is rejected; no EKU or anyExtendedKeyUsage is accepted")
    func extendedKeyUsage() async throws {
        var clientOnly = CertificateProfile.server(lab.host)
        clientOnly.extendedKeyUsages = [.clientAuth]
        let client = try lab.pki.issue(clientOnly, by: lab.intermediate)
        let rejected = await fixture.trust(chain: [client, lab.intermediate]).evaluate()
        #expect(rejected.outcome == .fatalFailure)
        #expect(rejected.failures.map(\.code) == [.extendedKeyUsage])
        // basicX509 does not look at the EKU.
        #expect(await fixture.trust(chain: [client, lab.intermediate]).withPolicy(.basicX509).evaluate().isTrusted)

        for usages in [nil, [ExtendedKeyUsage.Usage.any]] as [[ExtendedKeyUsage.Usage]?] {
            var profile = CertificateProfile.server(lab.host)
            profile.extendedKeyUsages = usages
            let leaf = try lab.pki.issue(profile, by: lab.intermediate)
            #expect(await fixture.trust(chain: [leaf, lab.intermediate]).evaluate().isTrusted)
        }
    }

    @Test("a CA certificate is not a server certificate")
    func caAsLeaf() async throws {
        var profile = CertificateProfile.certificateAuthority(lab.host)
        profile.dnsNames = [lab.host]
        let caLeaf = try lab.pki.issue(profile, by: lab.root)
        let evaluation = await fixture.trust(chain: [caLeaf]).evaluate()
        #expect(evaluation.failures.map(\.code) == [.leafIsCertificateAuthority])
    }

    @Test("a leaf whose basic constraints or key usage cannot be decoded is refused as malformed: whether it is a CA cannot be told")
    func leafWithMalformedConstraints() async throws {
        let cases: [(ASN1ObjectIdentifier, Bool, [UInt8])] = [
            (.X509ExtensionID.basicConstraints, true, [0x30, 0x03, 0x01]),
            (.X509ExtensionID.basicConstraints, false, [0x04, 0x00]),
            (.X509ExtensionID.keyUsage, true, [0x03, 0x05]),
        ]
        for (oid, critical, value) in cases {
            var profile = CertificateProfile.server(lab.host)
            profile.editExtensions = { extensions in
                _ = extensions.update(Certificate.Extension(oid: oid, critical: critical, value: value[...]))
            }
            let leaf = try lab.pki.issue(profile, by: lab.intermediate)
            let evaluation = await fixture.trust(chain: [leaf, lab.intermediate]).evaluate()
            #expect(evaluation.outcome == .fatalFailure, "\(oid)")
            #expect(evaluation.failures.map(\.code) == [.malformedCertificate], "\(oid)")
            #expect(evaluation.failures.first?.detail.contains(oid == .X509ExtensionID.keyUsage ? "malformed key usage" : "malformed basic constraints") == true)
        }
    }

    @Test("an intermediate that is not a CA cannot issue")
    func basicConstraints() async throws {
        let notCA = try lab.pki.issue(.server("not-a-ca.example.test"), by: lab.root)
        let leaf = try lab.pki.issue(.server(lab.host), by: notCA)
        let evaluation = await fixture.trust(chain: [leaf, notCA]).evaluate()
        #expect(evaluation.outcome == .fatalFailure)
        // Not a CA (RFC 5280 basic constraints) and no keyCertSign (key usage): both reported.
        #expect(evaluation.failures.map(\.code) == [.constraintViolation, .constraintViolation])
        #expect(evaluation.summary.contains("lacks keyCertSign"))
        #expect(evaluation.summary.contains("CA"))
    }

    @Test("an issuer whose key usage lacks keyCertSign cannot issue; no key usage at all is allowed")
    func issuerKeyUsage() async throws {
        var signingOnly = CertificateProfile.certificateAuthority("Signing-only CA")
        signingOnly.keyUsage = KeyUsage(digitalSignature: true)
        let badIssuer = try lab.pki.issue(signingOnly, by: lab.root)
        let leaf = try lab.pki.issue(.server(lab.host), by: badIssuer)
        let evaluation = await fixture.trust(chain: [leaf, badIssuer]).evaluate()
        #expect(evaluation.outcome == .fatalFailure)
        #expect(evaluation.failures.map(\.code) == [.constraintViolation])
        #expect(evaluation.summary.contains("lacks keyCertSign"))

        var unrestricted = CertificateProfile.certificateAuthority("Unrestricted CA")
        unrestricted.keyUsage = nil
        let goodIssuer = try lab.pki.issue(unrestricted, by: lab.root)
        let goodLeaf = try lab.pki.issue(.server(lab.host), by: goodIssuer)
        #expect(await fixture.trust(chain: [goodLeaf, goodIssuer]).evaluate().isTrusted)
    }

    @Test("paths longer than the limit are rejected")
    func pathLengthLimit() async throws {
        var issuer = lab.root
        var intermediates: [IssuedCertificate] = []
        for level in 1...5 {
            issuer = try lab.pki.issue(.certificateAuthority("Level \(level) CA"), by: issuer)
            intermediates.insert(issuer, at: 0)
        }
        let leaf = try lab.pki.issue(.server(lab.host), by: issuer)
        var trust = fixture.trust(chain: [leaf] + intermediates)
        #expect(await trust.evaluate().isTrusted)
        trust.limits = PathBuildingLimits(maximumPathLength: 4)
        let evaluation = await trust.evaluate()
        #expect(evaluation.outcome == .fatalFailure)
        #expect(evaluation.failures.map(\.code) == [.pathTooLong])
    }

    @Test("path building stops at its work budget, whatever the chain")
    func workBudget() async throws {
        // Many cross-signed CAs sharing names: the search space grows fast.
        let chain = try lab.pki.crossSignedMesh(under: lab.root, host: lab.host).chain
        var trust = fixture.trust(chain: chain)
        trust.limits = PathBuildingLimits(maximumPathLength: 10, maximumWork: 40)
        let clock = ContinuousClock()
        let started = clock.now
        let evaluation = await trust.evaluate()
        #expect(clock.now - started < .seconds(2))
        #expect(evaluation.failures.map(\.code) == [.workBudgetExceeded])
        // With the default budget the same mesh is validated.
        trust.limits = .default
        #expect(await trust.evaluate().isTrusted)
    }

    @Test("IP-literal hosts match IP subjectAltNames, never DNS names", arguments: ["127.0.0.1", "::1", "[::1]"])
    func ipLiteralHosts(host: String) async throws {
        let leaf = try lab.pki.issue(.server("loopback", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"]), by: lab.intermediate)
        #expect(await fixture.trust(chain: [leaf, lab.intermediate], host: host).evaluate().isTrusted)
        let other = await fixture.trust(chain: [leaf, lab.intermediate], host: "127.0.0.2").evaluate()
        #expect(other.failures.map(\.code) == [.hostnameMismatch])
        let dnsOnly = try lab.pki.issue(.server("127.0.0.1", dnsNames: ["127.0.0.1"]), by: lab.intermediate)
        #expect(await fixture.trust(chain: [dnsOnly, lab.intermediate], host: "127.0.0.1").evaluate().isTrusted == false)
    }

    @Test("hosts compare case-insensitively, without a trailing dot, and wildcards cover one label")
    func hostNormalization() async throws {
        #expect(await fixture.trust(.legitimate, policy: .ssl("API.Example.TEST.")).evaluate().isTrusted)
        let wildcard = try lab.pki.issue(.server("wildcard", dnsNames: ["*.example.test"]), by: lab.intermediate)
        #expect(await fixture.trust(chain: [wildcard, lab.intermediate], host: "www.example.test").evaluate().isTrusted)
        #expect(await fixture.trust(chain: [wildcard, lab.intermediate], host: "a.b.example.test").evaluate().isTrusted == false)
    }

    @Test("an empty chain is a fatal failure")
    func emptyChain() async {
        let evaluation = await ServerTrust(chain: [], policy: .ssl("x"), systemStore: fixture.systemStore).evaluate()
        #expect(evaluation.outcome == .fatalFailure)
        #expect(evaluation.failures.map(\.code) == [.emptyChain])
    }

    @Test("a leaf with an unknown critical extension is a fatal failure")
    func unknownCriticalExtension() async throws {
        let pki = lab.pki
        let key = try KeyPair(generating: .p256)
        var extensions = try Certificate.Extensions {
            SubjectAlternativeNames([.dnsName(lab.host)])
        }
        try extensions.append(Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 99999, 1], critical: true, value: [0x05, 0x00]))
        let certificate = try Certificate(
            version: .v3,
            serialNumber: .init(),
            publicKey: key.publicKey,
            notValidBefore: pki.now.addingTimeInterval(-PKI.day),
            notValidAfter: pki.now.addingTimeInterval(PKI.day),
            issuer: lab.intermediate.certificate.subject,
            subject: try DistinguishedName { CommonName(lab.host) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: lab.intermediate.keyPair.privateKey
        )
        let trust = ServerTrust(
            chain: [try DERCertificate(certificate), lab.intermediate.der],
            policy: .ssl(lab.host),
            systemStore: fixture.systemStore,
            evaluationTime: pki.now
        )
        let evaluation = await trust.evaluate()
        #expect(evaluation.outcome == .fatalFailure)
        #expect(evaluation.failures.map(\.code) == [.unhandledCriticalExtension])
    }

    @Test("RSA-2048, P-384 and Ed25519 hierarchies validate")
    func keyAlgorithms() async throws {
        for algorithm in [KeyAlgorithm.rsa2048, .p384, .ed25519] {
            let pki = PKI()
            let root = try pki.issueRoot(.certificateAuthority("\(algorithm) Root"), algorithm: algorithm)
            let intermediate = try pki.issue(.certificateAuthority("\(algorithm) CA"), by: root, algorithm: algorithm)
            let leaf = try pki.issue(.server("alg.example.test"), by: intermediate, algorithm: algorithm)
            let trust = ServerTrust(
                chain: [leaf.der, intermediate.der],
                policy: .ssl("alg.example.test"),
                anchors: [root.der],
                evaluationTime: pki.now
            )
            #expect(await trust.evaluate().isTrusted, "\(algorithm)")
        }
    }

    @Test("an unreadable system store is a fatal failure, not a crash")
    func systemStoreUnavailable() throws {
        #expect(throws: CertificateLoadingError.self) {
            try TrustStore.loadSystem(environment: [:], bundlePaths: ["/nonexistent/bundle.pem"])
        }
    }
}
