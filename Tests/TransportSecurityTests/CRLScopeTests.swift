import Foundation
import PKIBuilder
import SwiftASN1
import TestServers
import Testing
import TransportSecurity
import X509

/// Which certificates a CRL answers for: issuing distribution points (sharded lists), critical
/// entry extensions, and several lists for one issuer.
@Suite("Revocation: the scope of a CRL")
struct CRLScopeTests {
    let lab = LabFixture.shared.lab
    var now: Date { lab.pki.now }
    var store: TrustStore { TrustStore(lab.systemRoots.map(\.der), origin: "lab system store") }
    let shardA = "http://crl.example.test/shard-a.crl"
    let shardB = "http://crl.example.test/shard-b.crl"

    func leaf(crl: String? = nil) throws -> IssuedCertificate {
        try lab.pki.issue(CertificateProfile.server(lab.host).pointingTo(crl: crl), by: lab.intermediate)
    }

    /// A current list by the intermediate with `scope`, revoking `revoked`.
    func list(revoking revoked: [IssuedCertificate], scope: IssuingDistributionPoint?, entryExtensions: [Certificate.Extension] = [], thisUpdate: TimeInterval = -3_600) throws -> CertificateRevocationList {
        let der = try lab.intermediate.revocationList(
            revoking: revoked, thisUpdate: now.addingTimeInterval(thisUpdate), nextUpdate: now.addingTimeInterval(86_400),
            extensions: try scope.map { [try $0.certificateExtension] } ?? [], entryExtensions: entryExtensions
        )
        return try CertificateRevocationList(bytes: der, source: "shard.crl")
    }

    /// Hard-fail over the leaf and the intermediate, with the root's (complete) list for the intermediate.
    func evaluate(_ leaf: IssuedCertificate, lists: [CertificateRevocationList], failureMode: RevocationPolicy.FailureMode = .hard) async throws -> TrustDecision {
        let rootList = try CertificateRevocationList(bytes: try lab.root.revocationList(revoking: [], thisUpdate: now.addingTimeInterval(-3_600), nextUpdate: now.addingTimeInterval(86_400)))
        let trust = ServerTrust(chain: [leaf.der, lab.intermediate.der], policy: .ssl(lab.host), systemStore: store, evaluationTime: now)
        let policy = RevocationPolicy(options: .crl, failureMode: failureMode, crls: lists + [rootList])
        return await RevocationEvaluator(SecurityPolicy.default, policy: policy).evaluate(trust, forHost: lab.host)
    }

    @Test("a sharded list (issuing distribution point) answers for the certificates that point to it, and for no other")
    func shardedLists() async throws {
        let inShard = try leaf(crl: shardA)
        let revoked = try leaf(crl: shardA)
        let shard = IssuingDistributionPoint(fullName: [.uniformResourceIdentifier(shardA)], onlyContainsUserCertificates: true)
        let shardList = try list(revoking: [revoked], scope: shard)
        #expect(shardList.issuingDistributionPoint == shard, "read back as written")
        #expect(shardList.unsupportedCriticalExtensions.isEmpty)

        let good = try await evaluate(inShard, lists: [shardList])
        #expect(good.isTrusted, "\(good.reason)")
        let refused = try await evaluate(revoked, lists: [shardList])
        #expect(!refused.isTrusted)
        #expect(refused.reason.contains("is revoked (listed in a CRL of the policy"), "\(refused.reason)")

        // Another shard's certificate, or one that names no list: this list cannot say it is not revoked.
        let otherShard = try await evaluate(try leaf(crl: shardB), lists: [shardList])
        #expect(!otherShard.isTrusted)
        #expect(otherShard.reason.contains("a CRL of the policy does not cover the certificate: it is the list of the distribution point \(shardA), which is not one of the certificate's (the certificate's are \(shardB))"), "\(otherShard.reason)")
        let unnamed = try await evaluate(try leaf(), lists: [shardList])
        #expect(!unnamed.isTrusted)
        #expect(unnamed.reason.contains("(the certificate names no distribution point)"), "\(unnamed.reason)")
        // Soft-fail lets them through, saying so.
        let soft = try await evaluate(try leaf(crl: shardB), lists: [shardList], failureMode: .soft)
        #expect(soft.isTrusted && soft.isProvisional)

        // A scope without a name: every end-entity certificate of the issuer.
        let usersOnly = try list(revoking: [], scope: IssuingDistributionPoint(onlyContainsUserCertificates: true))
        #expect(try await evaluate(try leaf(), lists: [usersOnly]).isTrusted)
    }

    @Test("a list that cannot cover the certificate is not used: CA certificates only, end-entity only for a CA, some reasons only, indirect, attribute certificates, a name relative to the issuer")
    func outOfScope() async throws {
        let certificate = try leaf(crl: shardA)
        let named: [GeneralName] = [.uniformResourceIdentifier(shardA)]
        let cases: [(IssuingDistributionPoint, String)] = [
            (IssuingDistributionPoint(fullName: named, onlyContainsCACertificates: true), "it lists CA certificates only, and this one is not a CA"),
            (IssuingDistributionPoint(fullName: named, coversSomeReasonsOnly: true), "it covers only some revocation reasons (onlySomeReasons), so it cannot say a certificate is not revoked"),
            (IssuingDistributionPoint(fullName: named, isIndirect: true), "it is an indirect CRL (it may list other issuers' certificates), which is not supported"),
            (IssuingDistributionPoint(fullName: named, onlyContainsAttributeCertificates: true), "it lists attribute certificates only"),
            (IssuingDistributionPoint(isNamedRelativeToIssuer: true), "it names its distribution point relative to its issuer, which is not supported"),
        ]
        for (scope, reason) in cases {
            let scoped = try list(revoking: [], scope: scope)
            #expect(scoped.issuingDistributionPoint == scope)
            let decision = try await evaluate(certificate, lists: [scoped])
            #expect(!decision.isTrusted, "\(reason)")
            #expect(decision.reason.contains("a CRL of the policy does not cover the certificate: \(reason)"), "\(decision.reason)")
        }

        // The root's list for end-entity certificates says nothing of the intermediate, a CA.
        let rootUsersOnly = try CertificateRevocationList(bytes: try lab.root.revocationList(
            revoking: [], thisUpdate: now.addingTimeInterval(-3_600), nextUpdate: now.addingTimeInterval(86_400),
            extensions: [try IssuingDistributionPoint(onlyContainsUserCertificates: true).certificateExtension]
        ), source: "root-users.crl")
        let trust = ServerTrust(chain: [certificate.der, lab.intermediate.der], policy: .ssl(lab.host), systemStore: store, evaluationTime: now)
        let policy = RevocationPolicy(options: .crl, failureMode: .hard, crls: [try list(revoking: [], scope: nil), rootUsersOnly])
        let decision = await RevocationEvaluator(SecurityPolicy.default, policy: policy).evaluate(trust, forHost: lab.host)
        #expect(!decision.isTrusted)
        #expect(decision.reason.contains("a CRL of the policy does not cover the certificate: it lists end-entity certificates only, and this one is a CA"), "\(decision.reason)")

        // A certificate whose distribution point covers only some reasons is not fully answered by its list.
        var profile = CertificateProfile.server(lab.host)
        profile.editExtensions = { [shardA] extensions in
            var value = DER.Serializer()
            // SEQUENCE { DistributionPoint { [0] { [0] { [6] URI } }, [1] reasons (keyCompromise) } }
            try value.appendConstructedNode(identifier: .sequence) { points in
                try points.appendConstructedNode(identifier: .sequence) { point in
                    point.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { name in
                        name.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { fullName in
                            fullName.appendPrimitiveNode(identifier: ASN1Identifier(tagWithNumber: 6, tagClass: .contextSpecific)) { $0.append(contentsOf: shardA.utf8) }
                        }
                    }
                    try ASN1BitString(bytes: [0x40], paddingBits: 6).serialize(into: &point, withIdentifier: ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific))
                }
            }
            try extensions.append(Certificate.Extension(oid: [2, 5, 29, 31], critical: false, value: value.serializedBytes[...]))
        }
        let partial = try lab.pki.issue(profile, by: lab.intermediate)
        let partialDecision = try await evaluate(partial, lists: [try list(revoking: [], scope: IssuingDistributionPoint(fullName: named))])
        #expect(!partialDecision.isTrusted)
        #expect(partialDecision.reason.contains("the certificate's distribution point \(shardA) covers only some revocation reasons"), "\(partialDecision.reason)")
    }

    @Test("a list with a critical entry extension is not used (RFC 5280 §5.3); a non-critical one is read past")
    func criticalEntryExtensions() async throws {
        let certificate = try leaf()
        let other = try leaf()
        let certificateIssuer = Certificate.Extension(oid: [2, 5, 29, 29], critical: true, value: [0x30, 0x00])
        let withCritical = try list(revoking: [other], scope: nil, entryExtensions: [certificateIssuer])
        #expect(withCritical.unsupportedCriticalExtensions == ["2.5.29.29 (in the entry of serial number \(other.certificate.serialNumber))"])
        let decision = try await evaluate(certificate, lists: [withCritical])
        #expect(!decision.isTrusted)
        #expect(decision.reason.contains("a CRL of the policy has unsupported critical extensions"), "\(decision.reason)")

        // reasonCode keyCompromise, non-critical: the list is used.
        let reasonCode = Certificate.Extension(oid: [2, 5, 29, 21], critical: false, value: [0x0A, 0x01, 0x01])
        let withReason = try list(revoking: [other], scope: nil, entryExtensions: [reasonCode])
        #expect(withReason.unsupportedCriticalExtensions.isEmpty)
        #expect(try await evaluate(certificate, lists: [withReason]).isTrusted)
        #expect(try await !evaluate(other, lists: [withReason]).isTrusted)
    }

    @Test("several current lists for one issuer: one that lists the certificate wins, whatever the order")
    func revocationWins() async throws {
        let certificate = try leaf()
        let older = try list(revoking: [], scope: nil, thisUpdate: -7_200)
        let newer = try list(revoking: [certificate], scope: nil, thisUpdate: -60)
        for lists in [[older, newer], [newer, older]] {
            let decision = try await evaluate(certificate, lists: lists)
            #expect(!decision.isTrusted)
            #expect(decision.reason.contains("is revoked"), "\(decision.reason)")
        }
        let bothGood = try await evaluate(certificate, lists: [older, try list(revoking: [], scope: nil)])
        #expect(bothGood.isTrusted)
        #expect(bothGood.checks.last?.detail.contains("not revoked (a CRL of the policy)") == true, "\(bothGood.checks.last?.detail ?? "")")
    }

    @Test("OpenSSL, an independent reader, reads the same scope and draws the same conclusions with -crl_check")
    func openSSLAgrees() throws {
        let directory = try TemporaryDirectory()
        let shard = IssuingDistributionPoint(fullName: [.uniformResourceIdentifier(shardA)], onlyContainsUserCertificates: true)
        let revoked = try leaf(crl: shardA)
        let der = try lab.intermediate.revocationList(
            revoking: [revoked], thisUpdate: now.addingTimeInterval(-3_600), nextUpdate: now.addingTimeInterval(86_400),
            extensions: [try shard.certificateExtension]
        )
        let crl = try directory.write("shard.pem", text: PEMDocument(type: CertificateRevocationList.pemLabel, derBytes: der).pemString)
        let text = try shell("openssl crl -in \(crl) -noout -text")
        #expect(text.contains("Issuing Distribution Point: critical"), "\(text)")
        #expect(text.contains("URI:\(shardA)") && text.contains("Only User Certificates"), "\(text)")

        let root = try directory.write("root.pem", text: lab.root.pemString)
        let intermediate = try directory.write("intermediate.pem", text: lab.intermediate.pemString)
        let at = Int(now.timeIntervalSince1970)
        func verify(_ certificate: IssuedCertificate, _ name: String) throws -> String {
            let file = try directory.write(name, text: certificate.pemString)
            // Leaf only (-crl_check): the intermediate's status is not asked.
            return try shell("openssl verify -attime \(at) -crl_check -CAfile \(root) -untrusted \(intermediate) -CRLfile \(crl) \(file) 2>&1 || true")
        }
        let inShard = try verify(try leaf(crl: shardA), "in-shard.pem")
        #expect(inShard.contains(": OK"), "\(inShard)")
        let listed = try verify(revoked, "revoked.pem")
        #expect(listed.contains("certificate revoked"), "\(listed)")
        // Another shard: OpenSSL finds no list in scope, as the engine does.
        let otherShard = try verify(try leaf(crl: shardB), "other-shard.pem")
        #expect(otherShard.contains("different CRL scope"), "\(otherShard)")
    }

    @Test("issuing distribution points written by OpenSSL (openssl ca -gencrl) read as OpenSSL meant them, and decide as ours do")
    func writtenByOpenSSL() async throws {
        let directory = try TemporaryDirectory()
        let key = try directory.write("ca.key", text: lab.intermediate.privateKeyPEM)
        let certificate = try directory.write("ca.pem", text: lab.intermediate.pemString)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        let window = "-crl_lastupdate \(formatter.string(from: now.addingTimeInterval(-3_600))) -crl_nextupdate \(formatter.string(from: now.addingTimeInterval(86_400)))"
        func openSSLList(_ name: String, _ idp: String) throws -> CertificateRevocationList {
            let config = """
                [ca]
                default_ca = lab
                [lab]
                database = \(directory.path)/\(name).index
                crlnumber = \(directory.path)/\(name).number
                default_md = sha256
                crl_extensions = crl_ext
                [crl_ext]
                issuingDistributionPoint = critical, @idp
                [idp]
                \(idp)
                """
            let configFile = try directory.write("\(name).cnf", text: config)
            try directory.write("\(name).index", text: "")
            try directory.write("\(name).number", text: "01\n")
            let output = "\(directory.path)/\(name).crl"
            _ = try shell("openssl ca -batch -config \(configFile) -gencrl -keyfile \(key) -cert \(certificate) \(window) -out \(output) 2>&1")
            return try CertificateRevocationList(contentsOfFile: output)
        }
        let named: [GeneralName] = [.uniformResourceIdentifier(shardA)]
        let cases: [(String, IssuingDistributionPoint)] = [
            ("fullname = URI:\(shardA)\nonlyuser = TRUE", IssuingDistributionPoint(fullName: named, onlyContainsUserCertificates: true)),
            ("fullname = URI:\(shardA)\nonlyCA = TRUE", IssuingDistributionPoint(fullName: named, onlyContainsCACertificates: true)),
            ("fullname = URI:\(shardA)\nonlysomereasons = keyCompromise", IssuingDistributionPoint(fullName: named, coversSomeReasonsOnly: true)),
            ("fullname = URI:\(shardA)\nindirectCRL = TRUE", IssuingDistributionPoint(fullName: named, isIndirect: true)),
            ("fullname = URI:\(shardA)\nonlyAA = TRUE", IssuingDistributionPoint(fullName: named, onlyContainsAttributeCertificates: true)),
            ("relativename = shard\n[shard]\nCN = shard", IssuingDistributionPoint(isNamedRelativeToIssuer: true)),
        ]
        for (index, (idp, expected)) in cases.enumerated() {
            let list = try openSSLList("case\(index)", idp)
            #expect(list.issuingDistributionPoint == expected, "\(idp)")
            #expect(list.unsupportedCriticalExtensions.isEmpty && list.nonConformities.isEmpty)
        }
        let shard = try openSSLList("shard", "fullname = URI:\(shardA)\nonlyuser = TRUE")
        #expect(try await evaluate(try leaf(crl: shardA), lists: [shard]).isTrusted)
        #expect(try await !evaluate(try leaf(crl: shardB), lists: [shard]).isTrusted)
    }
}
