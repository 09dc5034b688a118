import Foundation
import PKIBuilder
import SecureSession
import SwiftASN1
import TestServers
import Testing
import TransportSecurity
import X509

/// Revocation against a local OCSP responder and CRLs made by the tests.
@Suite("Revocation: OCSP and CRLs")
struct RevocationTests {
    let lab = try! TrustLab()
    var now: Date { lab.pki.now }
    var store: TrustStore { TrustStore(lab.systemRoots.map(\.der), origin: "lab system store") }

    /// A cleartext server for `/ocsp` and `/files/…`, and a fetcher going through a session of its own.
    func responder(fetchTimeout: Duration = .seconds(3)) async throws -> (HTTPTestServer, SessionRevocationFetcher) {
        let server = try await HTTPTestServer(chain: nil)
        let session = SecureSession(configuration: SecureSessionConfiguration(tls: .init(decisionCache: nil), timeouts: .init(connect: .seconds(5), request: .seconds(5))))
        return (server, SessionRevocationFetcher(session: session, timeout: fetchTimeout, clock: { [lab] in lab.pki.now }))
    }

    func leaf(ocsp: String? = nil, crl: String? = nil) throws -> IssuedCertificate {
        try lab.pki.issue(CertificateProfile.server(lab.host).pointingTo(ocsp: ocsp, crl: crl), by: lab.intermediate)
    }

    func evaluate(_ leaf: IssuedCertificate, _ policy: RevocationPolicy, fetcher: SessionRevocationFetcher? = nil) async -> TrustDecision {
        let trust = ServerTrust(chain: [leaf.der, lab.intermediate.der], policy: .ssl(lab.host), systemStore: store, evaluationTime: now)
        return await RevocationEvaluator(SecurityPolicy.default, policy: policy, fetcher: fetcher).evaluate(trust, forHost: lab.host)
    }

    func crl(by issuer: IssuedCertificate? = nil, revoking: [IssuedCertificate], nextUpdate: TimeInterval = 86_400) throws -> CertificateRevocationList {
        let der = try (issuer ?? lab.intermediate).revocationList(revoking: revoking, thisUpdate: now.addingTimeInterval(-3_600), nextUpdate: now.addingTimeInterval(nextUpdate))
        return try CertificateRevocationList(bytes: der, source: "test.crl")
    }

    @Test("a CRL is read from DER and PEM, its fields and signature checked; garbage is an error naming the file")
    func crlParsing() throws {
        let revoked = try leaf()
        let der = try lab.intermediate.revocationList(revoking: [revoked], thisUpdate: now, nextUpdate: now.addingTimeInterval(86_400))
        let list = try CertificateRevocationList(bytes: der)
        #expect(list.issuer == lab.intermediate.certificate.subject)
        #expect(list.revocationDate(of: revoked.certificate.serialNumber) != nil)
        #expect(list.revocationDate(of: lab.leaf.certificate.serialNumber) == nil)
        #expect(list.isSigned(by: lab.intermediate.certificate))
        #expect(!list.isSigned(by: lab.root.certificate))
        #expect(list.isCurrent(at: now) && !list.isCurrent(at: now.addingTimeInterval(2 * 86_400)))
        let pem = PEMDocument(type: CertificateRevocationList.pemLabel, derBytes: der).pemString
        #expect(try CertificateRevocationList(bytes: Array(pem.utf8)) == list)
        // OpenSSL reads the same list.
        let directory = NSTemporaryDirectory() + "tsec-crl-\(UUID().uuidString).pem"
        try pem.write(toFile: directory, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let text = try shell("openssl crl -in \(directory) -noout -text")
        #expect(text.components(separatedBy: "Serial Number:").count == 2, "one revoked certificate: \(text)")
        #expect(text.contains("Next Update:"))
        #expect(try CertificateRevocationList(contentsOfFile: directory) == list)
        #expect(throws: RevocationError("cannot read the file: no such file", source: "/no/such.crl")) { try CertificateRevocationList(contentsOfFile: "/no/such.crl") }
        #expect(throws: RevocationError.self) { try CertificateRevocationList(bytes: Array("garbage".utf8), source: "bad.crl") }
        #expect(throws: RevocationError.self) { try CertificateRevocationList(bytes: Array(der.prefix(40)), source: "short.crl") }
    }

    @Test("OCSP messages: the CertIDs of openssl's requests (SHA-1 and SHA-256) name their certificate and no other; single responses read back their status and nextUpdate")
    func ocspMessages() throws {
        let asked = try leaf()
        let other = try leaf()
        let folder = NSTemporaryDirectory() + "tsec-ocsp-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try asked.pemString.write(toFile: folder + "/leaf.pem", atomically: true, encoding: .utf8)
        try lab.intermediate.pemString.write(toFile: folder + "/issuer.pem", atomically: true, encoding: .utf8)
        for digest in ["sha1", "sha256"] {
            _ = try shell("cd \(folder) && openssl ocsp -\(digest) -issuer issuer.pem -cert leaf.pem -no_nonce -reqout \(digest).der")
            let request = Array(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(digest).der")))
            let ids = try OCSPMessageSummary.certificateIDs(inRequest: request)
            #expect(ids.count == 1)
            #expect(ids.first?.issuerNameHash.count == (digest == "sha1" ? 20 : 32))
            #expect(ids.first?.names(asked.certificate) == true, "\(digest)")
            #expect(ids.first?.names(other.certificate) == false, "\(digest): another serial")
            #expect(ids.first?.names(lab.intermediate.certificate) == false, "\(digest): another issuer")
        }

        let request = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/sha1.der")))
        let id = try #require(try OCSPMessageSummary.certificateIDs(inRequest: request).first)
        let statuses: [(OCSPTestStatus, OCSPMessageSummary.CertificateStatus)] = [(.good, .good), (.revoked(now), .revoked), (.unknown, .unknown)]
        for (answer, expected) in statuses {
            let response = try lab.intermediate.ocspResponse(to: request, at: now, nextUpdate: now.addingTimeInterval(600)) { _ in answer }
            let single = OCSPMessageSummary.singleResponse(for: id.derBytes, inResponse: response)
            #expect(single?.status == expected)
            #expect(single?.nextUpdate == now.addingTimeInterval(600))
            #expect(OCSPMessageSummary.singleResponses(inResponse: response)?.count == 1)
        }
        #expect(OCSPMessageSummary.singleResponse(for: [0x30, 0x00], inResponse: try lab.intermediate.ocspResponse(to: request, at: now, nextUpdate: nil) { _ in .good }) == nil)
        #expect(OCSPMessageSummary.singleResponses(inResponse: Array("garbage".utf8)) == nil)
    }

    @Test("CRLs of the policy: revoked is refused, listed-but-other is trusted, stale or foreign lists give no answer (soft allows, hard refuses)")
    func policyCRLs() async throws {
        let revoked = try leaf()
        let fine = try leaf()
        let list = try crl(revoking: [revoked])
        let rejected = await evaluate(revoked, RevocationPolicy(options: .crl, crls: [list]))
        #expect(!rejected.isTrusted)
        #expect(rejected.decider == RevocationEvaluator.decider)
        #expect(rejected.reason.contains("is revoked (listed in a CRL of the policy"))
        let trusted = await evaluate(fine, RevocationPolicy(options: .crl, failureMode: .hard, crls: [list, try crl(by: lab.root, revoking: [])]))
        #expect(trusted.isTrusted, "\(trusted.reason)")
        #expect(trusted.checks.last?.detail.contains("not revoked (a CRL of the policy)") == true)
        #expect(trusted.reusableUntil == list.nextUpdate, "reused no longer than the lists are current")
        #expect(!trusted.isProvisional)

        let stale = try crl(revoking: [], nextUpdate: -60)
        #expect(await evaluate(fine, RevocationPolicy(options: .crl, failureMode: .soft, crls: [stale])).isTrusted)
        let hardStale = await evaluate(fine, RevocationPolicy(options: .crl, failureMode: .hard, crls: [stale]))
        #expect(!hardStale.isTrusted)
        #expect(hardStale.reason.contains("is not current"))
        // A list by another CA with the intermediate's name would not verify; one by the root does not cover the leaf.
        let hardNone = await evaluate(fine, RevocationPolicy(options: .crl, failureMode: .hard, crls: [try crl(by: lab.root, revoking: [])]))
        #expect(!hardNone.isTrusted)
        #expect(hardNone.reason.contains("positive answer is required"))
        // A policy that names no method can answer for nothing: hard-fail refuses, soft-fail lets
        // the server through and says the path went unchecked.
        let noMethod = await evaluate(fine, RevocationPolicy(options: .leafOnly, failureMode: .hard))
        #expect(!noMethod.isTrusted)
        #expect(noMethod.reason == "no revocation method applies to \(fine.der.subjectSummary) and a positive answer is required (hard-fail)")
        let unchecked = await evaluate(fine, RevocationPolicy(options: [], failureMode: .soft))
        #expect(unchecked.isTrusted && !unchecked.isProvisional)
        #expect(unchecked.checks.last?.detail == "\(fine.der.subjectSummary): not checked; \(lab.intermediate.der.subjectSummary): not checked")
    }

    @Test("a CRL that breaks RFC 5280 is not used: no CRL number, a critical CRL number, an issuer whose key usage lacks cRLSign")
    func nonConformingCRLs() async throws {
        let fine = try leaf()
        let rootList = try crl(by: lab.root, revoking: [])
        func list(crlNumber: Int?, critical: Bool = false, by issuer: IssuedCertificate? = nil) throws -> CertificateRevocationList {
            let der = try (issuer ?? lab.intermediate).revocationList(
                revoking: [], thisUpdate: now.addingTimeInterval(-3_600), nextUpdate: now.addingTimeInterval(86_400),
                crlNumber: crlNumber, crlNumberIsCritical: critical
            )
            return try CertificateRevocationList(bytes: der, source: "test.crl")
        }
        #expect(try list(crlNumber: 7).nonConformities.isEmpty)
        let cases: [(CertificateRevocationList, String)] = [
            (try list(crlNumber: nil), "it has no CRL number (RFC 5280 §5.2.3 requires one)"),
            (try list(crlNumber: 7, critical: true), "its CRL number is marked critical (RFC 5280 §5.2.3: non-critical)"),
        ]
        for (broken, reason) in cases {
            #expect(broken.nonConformities == [reason])
            let hard = await evaluate(fine, RevocationPolicy(options: .crl, failureMode: .hard, crls: [broken, rootList]))
            #expect(!hard.isTrusted)
            #expect(hard.reason.contains("a CRL of the policy is not used: \(reason)"), "\(hard.reason)")
            #expect(await evaluate(fine, RevocationPolicy(options: .crl, failureMode: .soft, crls: [broken, rootList])).isTrusted)
        }

        // A CA whose key usage allows certificate signing only: its leaf is valid, its CRL is not.
        var profile = CertificateProfile.certificateAuthority("No CRL Sign CA")
        profile.keyUsage = KeyUsage(keyCertSign: true)
        let ca = try lab.pki.issue(profile, by: lab.root)
        let issued = try lab.pki.issue(CertificateProfile.server(lab.host), by: ca)
        let trust = ServerTrust(chain: [issued.der, ca.der], policy: .ssl(lab.host), systemStore: store, evaluationTime: now)
        let policy = RevocationPolicy(options: .crl, failureMode: .hard, crls: [try list(crlNumber: 1, by: ca), rootList])
        let refused = await RevocationEvaluator(SecurityPolicy.default, policy: policy).evaluate(trust, forHost: lab.host)
        #expect(!refused.isTrusted)
        #expect(refused.reason.contains("whose key usage does not include cRLSign (RFC 5280 §6.3.3 f)"), "\(refused.reason)")
        #expect(await SecurityPolicy.default.evaluate(trust, forHost: lab.host).isTrusted, "the chain itself is valid")
    }

    @Test("a revoked intermediate is found in its issuer's CRL")
    func revokedIntermediate() async throws {
        let fine = try leaf()
        let rootList = try crl(by: lab.root, revoking: [lab.intermediate])
        let decision = await evaluate(fine, RevocationPolicy(options: .crl, crls: [try crl(revoking: []), rootList]))
        #expect(!decision.isTrusted)
        #expect(decision.reason.contains(lab.intermediate.der.subjectSummary))
    }

    @Test("CRLs at distribution points are fetched through the session and kept until nextUpdate; without network only kept ones count")
    func distributionPoints() async throws {
        let (server, fetcher) = try await responder()
        defer { Task { await server.stop() } }
        let url = server.url("/files/intermediate.crl").absoluteString
        let revoked = try leaf(crl: url)
        let fine = try leaf(crl: url)
        let der = try lab.intermediate.revocationList(revoking: [revoked], thisUpdate: now.addingTimeInterval(-60), nextUpdate: now.addingTimeInterval(3_600))
        server.files["intermediate.crl"] = PEMDocument(type: CertificateRevocationList.pemLabel, derBytes: der).pemString

        let offline = await evaluate(fine, RevocationPolicy(options: [.crl, .networkAccessDisabled], failureMode: .hard), fetcher: fetcher)
        #expect(!offline.isTrusted)
        #expect(offline.reason.contains("network access is disabled"))
        #expect(fetcher.networkFetches == 0)

        #expect(!(await evaluate(revoked, RevocationPolicy(options: .crl), fetcher: fetcher)).isTrusted)
        // Hard-fail needs an answer for the intermediate too: the root's CRL gives it.
        let rootList = try crl(by: lab.root, revoking: [])
        #expect(await evaluate(fine, RevocationPolicy(options: [.crl], failureMode: .hard, crls: [rootList]), fetcher: fetcher).isTrusted)
        #expect(await evaluate(fine, RevocationPolicy(options: [.crl, .networkAccessDisabled], failureMode: .hard, crls: [rootList]), fetcher: fetcher).isTrusted)
        let intermediateUnanswered = await evaluate(fine, RevocationPolicy(options: [.crl], failureMode: .hard), fetcher: fetcher)
        #expect(!intermediateUnanswered.isTrusted)
        #expect(intermediateUnanswered.reason.contains(lab.intermediate.der.subjectSummary))
        #expect(fetcher.networkFetches == 1, "kept until nextUpdate")
    }

    @Test("the answers a fetcher keeps are bounded: those past nextUpdate go first, then those expiring soonest; one too large is not kept")
    func keptAnswersBounded() async throws {
        let server = try await HTTPTestServer(chain: nil)
        defer { Task { await server.stop() } }
        let clock = LockedDate(now)
        // CRLs expiring one, two, three … hours from now, each the same size. An ECDSA signature
        // is 70 to 72 bytes long, whatever it signs: a list is signed again until its size is
        // the first one's.
        func list(expiringIn hours: Int) throws -> String {
            let der = try lab.intermediate.revocationList(revoking: [], thisUpdate: now.addingTimeInterval(-60), nextUpdate: now.addingTimeInterval(Double(hours) * 3_600))
            return PEMDocument(type: CertificateRevocationList.pemLabel, derBytes: der).pemString
        }
        let first = try list(expiringIn: 1)
        let size = first.utf8.count
        var texts = [first]
        for hours in 2...5 {
            var text = try list(expiringIn: hours)
            for _ in 0..<100 where text.utf8.count != size { text = try list(expiringIn: hours) }
            texts.append(text)
        }
        #expect(texts.allSatisfy { $0.utf8.count == size })
        for (index, text) in texts.enumerated() { server.files["list\(index).crl"] = text }
        let url = { (index: Int) in server.url("/files/list\(index).crl").absoluteString }
        let session = SecureSession(configuration: SecureSessionConfiguration(tls: .init(decisionCache: nil), timeouts: .init(connect: .seconds(5), request: .seconds(5))))
        defer { Task { await session.shutdown() } }
        let fetcher = SessionRevocationFetcher(session: session, clock: { clock.value }, maximumKeptBytes: 3 * size)
        for index in 0..<3 { _ = try await fetcher.crl(at: url(index), networkAllowed: true) }
        #expect(fetcher.kept == (3, 3 * size))
        // Full: keeping a fourth drops the one expiring soonest (list 0).
        _ = try await fetcher.crl(at: url(3), networkAllowed: true)
        #expect(fetcher.kept == (3, 3 * size))
        await #expect(throws: RevocationError.self) { _ = try await fetcher.crl(at: url(0), networkAllowed: false) }
        _ = try await fetcher.crl(at: url(3), networkAllowed: false)
        // Three and a half hours on, lists 1 and 2 (expiring after two and three hours) have
        // expired: they go, and list 3 (four hours) stays.
        clock.value = now.addingTimeInterval(3.5 * 3_600)
        _ = try await fetcher.crl(at: url(4), networkAllowed: true)
        #expect(fetcher.kept == (2, 2 * size))
        _ = try await fetcher.crl(at: url(3), networkAllowed: false)
        // An answer larger than the whole allowance is fetched but not kept.
        let small = SessionRevocationFetcher(session: session, clock: { clock.value }, maximumKeptBytes: size - 1)
        _ = try await small.crl(at: url(4), networkAllowed: true)
        #expect(small.kept == (0, 0))
    }

    @Test("OCSP from a local responder: good is trusted, revoked is refused, a responder that fails is soft- or hard-failed; answers are kept until nextUpdate")
    func ocsp() async throws {
        let (server, fetcher) = try await responder()
        defer { Task { await server.stop() } }
        let url = server.url("/ocsp").absoluteString
        let revoked = try leaf(ocsp: url)
        let fine = try leaf(ocsp: url)
        let revokedSerial = revoked.certificate.serialNumber
        server.ocspResponder.answer = { [lab, now] request in
            try lab.intermediate.ocspResponse(to: request, at: now, nextUpdate: now.addingTimeInterval(3_600)) { serial in
                serial == revokedSerial ? .revoked(now.addingTimeInterval(-60)) : .good
            }
        }
        let good = await evaluate(fine, RevocationPolicy(options: [.ocsp, .leafOnly], failureMode: .hard), fetcher: fetcher)
        #expect(good.isTrusted, "\(good.reason)")
        #expect(good.checks.last?.detail.contains("not revoked (OCSP)") == true)
        #expect(good.reusableUntil == now.addingTimeInterval(3_600), "reused no longer than the answer is current")
        #expect(!good.isProvisional)
        let refused = await evaluate(revoked, RevocationPolicy(options: .ocsp), fetcher: fetcher)
        #expect(!refused.isTrusted)
        #expect(refused.decider == RevocationEvaluator.decider)
        #expect(refused.reason.lowercased().contains("revoked"))

        // Kept: asked again with the network off, the answers are still there.
        let fetches = fetcher.networkFetches
        #expect(await evaluate(fine, RevocationPolicy(options: [.ocsp, .networkAccessDisabled, .leafOnly], failureMode: .hard), fetcher: fetcher).isTrusted)
        #expect(fetcher.networkFetches == fetches)

        // A "good" signed by another CA (the root, not the leaf's issuer) is not believed.
        server.ocspResponder.answer = { [lab, now] request in
            try lab.root.ocspResponse(to: request, at: now, nextUpdate: now.addingTimeInterval(3_600)) { _ in .good }
        }
        fetcher.removeAll()
        #expect(!(await evaluate(fine, RevocationPolicy(options: [.ocsp, .leafOnly], failureMode: .hard), fetcher: fetcher)).isTrusted)

        // The responder breaks (HTTP 500): soft-fail lets through, hard-fail refuses.
        server.ocspResponder.answer = nil
        fetcher.removeAll()
        #expect(await evaluate(fine, RevocationPolicy(options: .ocsp, failureMode: .soft), fetcher: fetcher).isTrusted)
        let hard = await evaluate(fine, RevocationPolicy(options: [.ocsp, .leafOnly], failureMode: .hard), fetcher: fetcher)
        #expect(!hard.isTrusted)
        #expect(hard.decider == RevocationEvaluator.decider)
    }

    @Test("an OCSP response that does not verify (another CA's signature, status unknown, stale) is no answer: the CRL is asked next, soft-fail lets through saying so, hard-fail refuses")
    func unverifiableOCSP() async throws {
        let (server, fetcher) = try await responder()
        defer { Task { await server.stop() } }
        let leaf = try leaf(ocsp: server.url("/ocsp").absoluteString)
        let revoking = try crl(revoking: [leaf])
        let answers: [(String, @Sendable ([UInt8]) throws -> [UInt8])] = [
            ("signed by another CA", { [lab, now] request in
                try lab.root.ocspResponse(to: request, at: now, nextUpdate: now.addingTimeInterval(3_600)) { _ in .good }
            }),
            ("status unknown", { [lab, now] request in
                try lab.intermediate.ocspResponse(to: request, at: now, nextUpdate: now.addingTimeInterval(3_600)) { _ in .unknown }
            }),
            // Past its nextUpdate by more than swift-certificates' 75 minutes of leeway for clock skew.
            ("stale", { [lab, now] request in
                try lab.intermediate.ocspResponse(to: request, at: now.addingTimeInterval(-3 * 3_600), nextUpdate: now.addingTimeInterval(-2 * 3_600)) { _ in .good }
            }),
        ]
        for (what, answer) in answers {
            server.ocspResponder.answer = answer
            fetcher.removeAll()
            // OCSP first, then the CRL, which lists the leaf: the CRL must still be asked.
            let viaCRL = await evaluate(leaf, RevocationPolicy(options: .useAnyAvailable, failureMode: .soft, crls: [revoking]), fetcher: fetcher)
            #expect(!viaCRL.isTrusted, "\(what): \(viaCRL.reason)")
            #expect(viaCRL.reason.contains("is revoked (listed in a CRL of the policy"), "\(what): \(viaCRL.reason)")

            let soft = await evaluate(leaf, RevocationPolicy(options: [.ocsp, .leafOnly], failureMode: .soft), fetcher: fetcher)
            let detail = soft.checks.last?.detail ?? ""
            #expect(soft.isTrusted, "\(what): \(soft.reason)")
            #expect(detail.contains("no answer, allowed (soft-fail)"), "\(what): \(detail)")
            #expect(!detail.contains("not revoked"), "\(what): an answer that does not verify says nothing: \(detail)")
            #expect(soft.isProvisional, "\(what)")

            let hard = await evaluate(leaf, RevocationPolicy(options: [.ocsp, .leafOnly], failureMode: .hard), fetcher: fetcher)
            #expect(!hard.isTrusted, "\(what)")
            #expect(hard.reason.contains("no current revocation answer"), "\(what): \(hard.reason)")
        }
    }

    @Test("an answer that cannot be used is not kept: a forged OCSP response or CRL claiming to be current for years is asked for again next time, so the real answer gets through")
    func unusableAnswersAreNotKept() async throws {
        let (server, fetcher) = try await responder()
        defer { Task { await server.stop() } }
        let crlURL = server.url("/files/intermediate.crl").absoluteString
        let leaf = try leaf(ocsp: server.url("/ocsp").absoluteString, crl: crlURL)
        let years = now.addingTimeInterval(10 * 365 * 86_400)

        // OCSP: first a "good" signed by the wrong CA, current for ten years; then the real answer.
        server.ocspResponder.answer = { [lab, now] request in
            try lab.root.ocspResponse(to: request, at: now, nextUpdate: years) { _ in .good }
        }
        let ocspOnly = RevocationPolicy(options: [.ocsp, .leafOnly], failureMode: .soft)
        #expect(await evaluate(leaf, ocspOnly, fetcher: fetcher).isProvisional)
        let revokedSerial = leaf.certificate.serialNumber
        server.ocspResponder.answer = { [lab, now] request in
            try lab.intermediate.ocspResponse(to: request, at: now, nextUpdate: now.addingTimeInterval(3_600)) { serial in
                serial == revokedSerial ? .revoked(now.addingTimeInterval(-60)) : .good
            }
        }
        let fetches = fetcher.networkFetches
        let afterOCSP = await evaluate(leaf, ocspOnly, fetcher: fetcher)
        #expect(!afterOCSP.isTrusted, "\(afterOCSP.reason)")
        #expect(fetcher.networkFetches > fetches, "the forged response was not served again")

        // CRL: first a list by the root (not the leaf's issuer) naming nothing, for ten years; then the real one.
        let forged = try lab.root.revocationList(revoking: [], thisUpdate: now.addingTimeInterval(-60), nextUpdate: years)
        server.files["intermediate.crl"] = PEMDocument(type: CertificateRevocationList.pemLabel, derBytes: forged).pemString
        let crlOnly = RevocationPolicy(options: [.crl, .leafOnly], failureMode: .soft)
        #expect(await evaluate(leaf, crlOnly, fetcher: fetcher).isProvisional)
        let real = try lab.intermediate.revocationList(revoking: [leaf], thisUpdate: now.addingTimeInterval(-60), nextUpdate: now.addingTimeInterval(3_600))
        server.files["intermediate.crl"] = PEMDocument(type: CertificateRevocationList.pemLabel, derBytes: real).pemString
        let afterCRL = await evaluate(leaf, crlOnly, fetcher: fetcher)
        #expect(!afterCRL.isTrusted, "\(afterCRL.reason)")
        #expect(afterCRL.reason.contains("is revoked (listed in \(crlURL)"), "\(afterCRL.reason)")

        // An answer that could be used (it verified, and lists the leaf) is kept.
        let kept = fetcher.networkFetches
        #expect(!(await evaluate(leaf, crlOnly, fetcher: fetcher)).isTrusted)
        #expect(fetcher.networkFetches == kept)
    }

    @Test("hard-fail takes a positive answer from either method: a responder that is down leaves the CRL to answer")
    func hardFailFallsBack() async throws {
        let (server, fetcher) = try await responder()
        defer { Task { await server.stop() } }
        let fine = try leaf(ocsp: server.url("/ocsp").absoluteString)
        server.ocspResponder.answer = nil  // HTTP 500
        let clean = try crl(revoking: [])
        let ocspFirst = await evaluate(fine, RevocationPolicy(options: [.ocsp, .crl, .leafOnly], failureMode: .hard, crls: [clean]), fetcher: fetcher)
        #expect(ocspFirst.isTrusted, "\(ocspFirst.reason)")
        #expect(ocspFirst.checks.last?.detail.contains("not revoked (a CRL of the policy)") == true, "\(ocspFirst.checks.last?.detail ?? "")")
        // And the other way round: no CRL, a good OCSP answer.
        server.ocspResponder.answer = { [lab, now] request in
            try lab.intermediate.ocspResponse(to: request, at: now, nextUpdate: now.addingTimeInterval(3_600)) { _ in .good }
        }
        let crlFirst = await evaluate(fine, RevocationPolicy(options: [.ocsp, .crl, .preferCRL, .leafOnly], failureMode: .hard), fetcher: fetcher)
        #expect(crlFirst.isTrusted, "\(crlFirst.reason)")
        // Neither answers: refused, naming both.
        server.ocspResponder.answer = nil
        fetcher.removeAll()
        let neither = await evaluate(fine, RevocationPolicy(options: [.ocsp, .crl, .leafOnly], failureMode: .hard), fetcher: fetcher)
        #expect(!neither.isTrusted)
        #expect(neither.reason.contains("no current revocation answer"), "\(neither.reason)")
    }

    @Test("an OCSP response without nextUpdate is no answer (RFC 5019 §4: the client must reject it)")
    func ocspWithoutNextUpdate() async throws {
        let (server, fetcher) = try await responder()
        defer { Task { await server.stop() } }
        let fine = try leaf(ocsp: server.url("/ocsp").absoluteString)
        server.ocspResponder.answer = { [lab, now] request in
            try lab.intermediate.ocspResponse(to: request, at: now, nextUpdate: nil) { _ in .good }
        }
        let hard = await evaluate(fine, RevocationPolicy(options: [.ocsp, .leafOnly], failureMode: .hard), fetcher: fetcher)
        #expect(!hard.isTrusted)
        #expect(hard.reason.contains("no current revocation answer") && hard.reason.contains("nextUpdate"), "\(hard.reason)")
        let soft = await evaluate(fine, RevocationPolicy(options: [.ocsp, .leafOnly], failureMode: .soft), fetcher: fetcher)
        #expect(soft.isTrusted && soft.isProvisional)
    }

    @Test("through a session, a soft-failed decision is reused no longer than a rejection: a certificate revoked meanwhile is refused on a later connection")
    func provisionalDecisionInTheSessionCache() async throws {
        let (responder, fetcher) = try await responder()
        defer { Task { await responder.stop() } }
        let profile = CertificateProfile.server("loopback", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
        let leaf = try lab.pki.issue(profile.pointingTo(ocsp: responder.url("/ocsp").absoluteString), by: lab.intermediate)
        let server = try await HTTPTestServer(chain: [leaf, lab.intermediate])
        defer { Task { await server.stop() } }
        let clock = ManualClock(Date())
        let cache = DecisionCache(maximumAge: 3_600, rejectionAge: 60, clock: { clock.now })
        let evaluator = RevocationEvaluator(SecurityPolicy.default, policy: RevocationPolicy(options: [.ocsp, .leafOnly], failureMode: .soft), fetcher: fetcher)
        // A new session each time, sharing the cache: every request is a new handshake.
        func status() async throws -> Int {
            let session = lab.session(evaluator) { $0.tls.decisionCache = cache }
            defer { Task { await session.shutdown() } }
            return try await session.get(server.url("/hello")).statusCode
        }

        responder.ocspResponder.answer = nil  // the responder is down: soft-fail lets the server through
        #expect(try await status() == 200)
        let revokedAt = now.addingTimeInterval(-60)
        responder.ocspResponder.answer = { [lab, now] request in
            try lab.intermediate.ocspResponse(to: request, at: now, nextUpdate: now.addingTimeInterval(3_600)) { _ in .revoked(revokedAt) }
        }
        clock.advance(30)
        #expect(try await status() == 200, "within a minute the provisional decision stands")
        clock.advance(31)
        await #expect {
            _ = try await status()
        } throws: { error in
            guard case .trustRejected(let decision)? = error.sessionFailureReason else { return false }
            return decision.decider == RevocationEvaluator.decider && decision.reason.contains("is revoked")
        }
    }

    @Test("a responder that never answers gives up after the fetcher's timeout: soft-fail lets the server through in time, hard-fail refuses it")
    func silentResponder() async throws {
        let (server, fetcher) = try await responder(fetchTimeout: .milliseconds(300))
        defer { Task { await server.stop() } }
        let silent = try leaf(ocsp: server.url("/never").absoluteString, crl: server.url("/never").absoluteString)
        let clock = ContinuousClock()
        let started = clock.now
        let soft = await evaluate(silent, RevocationPolicy(options: [.ocsp, .crl, .leafOnly], failureMode: .soft), fetcher: fetcher)
        #expect(soft.isTrusted, "\(soft.reason)")
        #expect(soft.checks.last?.detail.contains("no answer, allowed (soft-fail)") == true, "\(soft.checks.last?.detail ?? "")")
        #expect(clock.now - started < .seconds(3), "two fetches of at most 300 ms each, not the session's 5 s")
        let hard = await evaluate(silent, RevocationPolicy(options: [.ocsp, .crl, .leafOnly], failureMode: .hard), fetcher: fetcher)
        #expect(!hard.isTrusted)
        #expect(hard.reason.contains("timed out"), "\(hard.reason)")
    }

    @Test("order: OCSP first by default; preferCRL asks the CRL first")
    func order() async throws {
        let (server, fetcher) = try await responder()
        defer { Task { await server.stop() } }
        let leaf = try leaf(ocsp: server.url("/ocsp").absoluteString)
        // The responder says good, the CRL says revoked: whichever is asked first decides.
        server.ocspResponder.answer = { [lab, now] request in
            try lab.intermediate.ocspResponse(to: request, at: now, nextUpdate: now.addingTimeInterval(3_600)) { _ in .good }
        }
        let list = try crl(revoking: [leaf])
        #expect(await evaluate(leaf, RevocationPolicy(options: .useAnyAvailable, crls: [list]), fetcher: fetcher).isTrusted)
        #expect(!(await evaluate(leaf, RevocationPolicy(options: [.ocsp, .crl, .preferCRL], crls: [list]), fetcher: fetcher)).isTrusted)
    }
}

/// A date a test moves forward, read by a fetcher's clock.
private final class LockedDate: @unchecked Sendable {
    private let lock = NSLock()
    private var date: Date
    init(_ date: Date) { self.date = date }
    var value: Date {
        get { lock.withLock { date } }
        set { lock.withLock { date = newValue } }
    }
}
