import Foundation
import PKIBuilder
import TestServers
import Testing
import TransportSecurity
import X509

@Suite("Certificate transparency: SCTs, log lists and Apple's policy")
struct CertificateTransparencyTests {
    let lab = LabFixture.shared.lab
    var now: Date { lab.pki.now }
    let google = TestCTLog(name: "Argon", operatorName: "Google")
    let cloudflare = TestCTLog(name: "Nimbus", operatorName: "Cloudflare")
    let digicert = TestCTLog(name: "Yeti", operatorName: "DigiCert")
    let google2 = TestCTLog(name: "Xenon", operatorName: "Google")

    func policy(_ entries: [CTLog]) -> CertificateTransparencyPolicy {
        CertificateTransparencyPolicy(logList: CTLogList(logs: entries))
    }

    func leaf(loggedBy logs: [TestCTLog], lifetimeDays: Double = 90, at time: Date? = nil) throws -> IssuedCertificate {
        var profile = CertificateProfile.server(lab.host)
        profile.notBeforeOffset = 0
        profile.notAfterOffset = lifetimeDays * 86_400
        return try lab.pki.issue(profile, by: lab.intermediate, loggedBy: logs, at: time)
    }

    func verdict(_ leaf: IssuedCertificate, _ policy: CertificateTransparencyPolicy, issuer: IssuedCertificate? = nil) -> CertificateTransparencyPolicy.Verdict {
        policy.verdict(on: [leaf.der, (issuer ?? lab.intermediate).der], at: now)
    }

    @Test("embedded SCTs are read back, and the precertificate rebuilt from the final certificate is the TBS the logs signed")
    func embedded() throws {
        let logged = try leaf(loggedBy: [google, cloudflare])
        let timestamps = try SignedCertificateTimestamp.embedded(in: logged.certificate)
        #expect(timestamps.count == 2)
        #expect(timestamps.map(\.date) == [now, now].map { Date(timeIntervalSince1970: ($0.timeIntervalSince1970 * 1000).rounded(.down) / 1000) })
        #expect(timestamps[0].logID == google.entry().logID)
        #expect(SignedCertificateTimestamp.serializedList(timestamps).count > 2 * 100)
        #expect(try SignedCertificateTimestamp.embedded(in: lab.leaf.certificate).isEmpty)

        // OpenSSL, an independent reader, finds the same two SCTs in the extension.
        let directory = try TemporaryDirectory()
        let file = try directory.write("logged.der", logged.derBytes)
        let text = try shell("openssl x509 -inform DER -in \(file) -noout -text")
        #expect(text.components(separatedBy: "Signed Certificate Timestamp:").count == 3, "\(text)")
        #expect(text.contains("ecdsa-with-SHA256"))
    }

    @Test("two valid SCTs from two operators pass a 90-day certificate; one SCT, or two from one operator, do not")
    func counts() throws {
        let all = policy([google, cloudflare, google2].map { $0.entry() })
        let passing = verdict(try leaf(loggedBy: [google, cloudflare]), all)
        #expect(passing.isCompliant, "\(passing.reason)")
        #expect(passing.reason == "2 valid SCTs from 2 operators; needs 2 valid SCTs from at least 2 log operators")
        #expect(passing.timestamps == ["SCT from Argon (Google): valid", "SCT from Nimbus (Cloudflare): valid"])

        let single = verdict(try leaf(loggedBy: [google]), all)
        #expect(!single.isCompliant)
        #expect(single.reason.hasPrefix("1 valid SCT from 1 operator"))
        let oneOperator = verdict(try leaf(loggedBy: [google, google2]), all)
        #expect(!oneOperator.isCompliant)
        #expect(oneOperator.reason.hasPrefix("2 valid SCTs from 1 operator"))
        let none = verdict(lab.leaf, all)
        #expect(!none.isCompliant && none.reason.hasPrefix("the leaf carries no SCTs"))
    }

    @Test("a certificate valid for more than 180 days needs three")
    func longLifetime() throws {
        let all = policy([google, cloudflare, digicert].map { $0.entry() })
        #expect(!verdict(try leaf(loggedBy: [google, cloudflare], lifetimeDays: 181), all).isCompliant)
        #expect(verdict(try leaf(loggedBy: [google, cloudflare, digicert], lifetimeDays: 181), all).isCompliant)
        #expect(verdict(try leaf(loggedBy: [google, cloudflare], lifetimeDays: 180), all).isCompliant)
    }

    @Test("SCTs from retired logs count, but not alone: at least one must come from a log still approved")
    func retiredLogsAlone() throws {
        let logged = try leaf(loggedBy: [google, cloudflare])
        let later = now.addingTimeInterval(60)
        let allRetired = verdict(logged, policy([google.entry(state: .retired(later)), cloudflare.entry(state: .retired(later))]))
        #expect(!allRetired.isCompliant)
        #expect(allRetired.reason == "2 valid SCTs from 2 operators, all from retired logs; needs 2 valid SCTs from at least 2 log operators, one of them from a log still approved (qualified, usable or read-only)")
        #expect(allRetired.timestamps == ["SCT from Argon (Google): valid", "SCT from Nimbus (Cloudflare): valid"])
        for state in [CTLog.State.qualified, .usable, .readonly] {
            let oneCurrent = verdict(logged, policy([google.entry(state: .retired(later)), cloudflare.entry(state: state)]))
            #expect(oneCurrent.isCompliant, "\(state): \(oneCurrent.reason)")
        }
        // Too few SCTs stays the reason when there are too few, whatever their logs.
        let single = verdict(try leaf(loggedBy: [google]), policy([google.entry(state: .retired(later))]))
        #expect(single.reason == "1 valid SCT from 1 operator; needs 2 valid SCTs from at least 2 log operators")
    }

    @Test("SCTs that do not count: unknown log, pending or rejected log, retired before the SCT, expiry outside the temporal interval, timestamp in the future, wrong issuer")
    func notCounted() throws {
        let logged = try leaf(loggedBy: [google, cloudflare])
        let expiry = logged.certificate.notValidAfter
        let cases: [(CertificateTransparencyPolicy, String)] = [
            (policy([google.entry()]), "SCT from unknown log"),
            (policy([google.entry(), cloudflare.entry(state: .pending)]), "was not trusted when it signed"),
            (policy([google.entry(), cloudflare.entry(state: .rejected)]), "was not trusted when it signed"),
            (policy([google.entry(), cloudflare.entry(state: .retired(now.addingTimeInterval(-1)))]), "was not trusted when it signed"),
            (policy([google.entry(), cloudflare.entry(temporalInterval: expiry.addingTimeInterval(1)..<expiry.addingTimeInterval(86_400))]), "outside the log's temporal interval"),
        ]
        for (policy, expected) in cases {
            let result = verdict(logged, policy)
            #expect(!result.isCompliant, "\(expected)")
            #expect(result.timestamps.contains { $0.contains(expected) }, "\(result.timestamps)")
        }
        let both = policy([google, cloudflare].map { $0.entry() })
        // Retired after the SCT was made, readonly, qualified: they count.
        #expect(verdict(logged, policy([google.entry(state: .readonly), cloudflare.entry(state: .retired(now.addingTimeInterval(1)))])).isCompliant)
        #expect(verdict(logged, policy([google.entry(state: .qualified), cloudflare.entry(temporalInterval: expiry..<expiry.addingTimeInterval(1))])).isCompliant)

        let future = verdict(try leaf(loggedBy: [google, cloudflare], at: now.addingTimeInterval(3_600)), both)
        #expect(!future.isCompliant)
        #expect(future.timestamps.allSatisfy { $0.contains("is in the future") })

        // Checked against another issuer's key hash, the signatures no longer verify.
        let wrongIssuer = verdict(logged, both, issuer: lab.root)
        #expect(!wrongIssuer.isCompliant)
        #expect(wrongIssuer.timestamps.allSatisfy { $0.hasSuffix("the signature does not verify") })
    }

    @Test("a log list in the common JSON format: logs, operators, states, intervals; malformed entries are refused by name")
    func logList() throws {
        let json = TestCTLog.logListJSON([(google, "usable", now), (cloudflare, "retired", now), (digicert, "pending", now)])
        let list = try CTLogList(json: json)
        #expect(list.logs.count == 3)
        #expect(list.log(id: google.entry().logID)?.operatorName == "Google")
        #expect(list.log(id: cloudflare.entry().logID)?.state == .retired(Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))))
        #expect(list.log(id: digicert.entry().logID)?.state == .pending)

        func refused(_ edit: (inout [String: Any]) -> Void) -> String {
            var object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] ?? [:]
            var operators = object["operators"] as? [[String: Any]] ?? []
            var logs = operators[0]["logs"] as? [[String: Any]] ?? []
            edit(&logs[0])
            operators[0]["logs"] = logs
            object["operators"] = operators
            do {
                _ = try CTLogList(json: JSONSerialization.data(withJSONObject: object))
                return "accepted"
            } catch {
                return String(describing: error)
            }
        }
        #expect(refused { $0["key"] = "AAAA" }.contains("key is not a base64 SubjectPublicKeyInfo"))
        #expect(refused { $0["log_id"] = Data(repeating: 1, count: 32).base64EncodedString() }.contains("log_id is not the SHA-256 of the key"))
        #expect(refused { $0["state"] = ["dormant": [:]] }.contains("unknown state \"dormant\""))
        #expect(refused { $0["state"] = ["retired": [:]] }.contains("retirement timestamp"))
        #expect(refused { $0["temporal_interval"] = ["start_inclusive": "2031-01-01T00:00:00Z", "end_exclusive": "2030-01-01T00:00:00Z"] }.contains("ends before it starts"))
        #expect(throws: CertificateTransparencyError.self) { try CTLogList(json: Data("[]".utf8)) }
        #expect("\(catching { _ = try CTLogList(json: Data("[]".utf8)) })" == "not a log list: the log list: expected an object")
        #expect("\(catching { _ = try CTLogList(json: Data("{\"operators\": [".utf8)) })" == "not a log list: not JSON (unexpected end of file during JSON parse)")
        #expect("\(catching { _ = try CTLogList(json: Data("{\"operators\": [{\"name\": 7}]}".utf8)) })" == "not a log list: operators[0].name: expected a string")
    }

    private func catching(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    @Test("as an evaluator: a trusted server without compliant SCTs is rejected by certificate transparency, with the reason")
    func evaluator() async throws {
        let store = TrustStore(lab.systemRoots.map(\.der), origin: "lab system store")
        let evaluator = CertificateTransparencyEvaluator(SecurityPolicy.default, policy: policy([google, cloudflare].map { $0.entry() }))
        for (leaf, expected) in [(try leaf(loggedBy: [google, cloudflare]), true), (try leaf(loggedBy: [google]), false)] {
            let trust = ServerTrust(chain: [leaf.der, lab.intermediate.der], policy: .ssl(lab.host), systemStore: store, evaluationTime: now)
            let decision = await evaluator.evaluate(trust, forHost: lab.host)
            #expect(decision.isTrusted == expected, "\(decision.reason)")
            #expect(decision.checks.contains { $0.name == "certificate transparency" })
            if !expected {
                #expect(decision.decider == CertificateTransparencyEvaluator.decider)
                #expect(decision.reason.contains("1 valid SCT from 1 operator"))
            }
        }
    }
}
