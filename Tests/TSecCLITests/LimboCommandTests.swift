import Foundation
import PKIBuilder
import SwiftASN1
import TSecCLI
import TestServers
import Testing

@Suite("tsec limbo")
struct LimboCommandTests {
    let lab = try! TrustLab()

    /// A limbo testcase made from lab certificates.
    func testcase(_ id: String, chain: [IssuedCertificate], host: String, expected: String, features: [String] = [], kind: String = "SERVER") -> [String: Any] {
        [
            "id": id, "conflicts_with": [String](), "features": features, "importance": "high", "description": "",
            "validation_kind": kind, "trusted_certs": [lab.root.pemString],
            "untrusted_intermediates": chain.dropFirst().map(\.pemString), "peer_certificate": chain[0].pemString,
            "peer_certificate_key": NSNull(), "validation_time": lab.pki.now.formatted(.iso8601),
            "signature_algorithms": [String](), "key_usage": [String](), "extended_key_usage": [String](),
            "expected_result": expected, "expected_peer_name": ["kind": "DNS", "value": host],
            "expected_peer_names": [Any](), "max_chain_depth": NSNull(), "crls": [String](),
        ]
    }

    func write(_ cases: [[String: Any]], gzip: Bool = false) throws -> String {
        let directory = NSTemporaryDirectory() + "tsec-limbo-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/limbo.json"
        try JSONSerialization.data(withJSONObject: ["version": 1, "testcases": cases]).write(to: URL(fileURLWithPath: path))
        if gzip {
            _ = try shell("gzip '\(path)'")
            return path + ".gz"
        }
        return path
    }

    @Test("passes, false accepts and rejects, skips: the table, the last line, the exit status and the JSON results; the stock verifier beside the engine")
    func run() async throws {
        let cases = [
            testcase("webpki::good", chain: lab.chain(.legitimate), host: lab.host, expected: "SUCCESS"),
            testcase("webpki::expired", chain: lab.chain(.expired), host: lab.host, expected: "FAILURE"),
            testcase("rfc5280::wrong-expectation", chain: lab.chain(.legitimate), host: lab.host, expected: "FAILURE"),
            testcase("rfc5280::false-reject", chain: lab.chain(.wrongHost), host: lab.host, expected: "SUCCESS"),
            testcase("policy::constrained", chain: lab.chain(.legitimate), host: lab.host, expected: "FAILURE", features: ["has-policy-constraints"]),
        ]
        let path = try write(cases, gzip: true)
        let results = path + ".results.json"
        let run = await tsec(["limbo", path, "--json", results])
        #expect(run.status == 1, "a false accept fails the run")
        #expect(run.output.stdout.hasSuffix("2 passed, 2 failed, 1 skipped\n"), "\(run.output.stdout)")
        #expect(run.output.stdout.contains("webpki                  2             0             0            0        0"))
        #expect(run.output.stdout.contains("rfc5280                 0             1             1            0        0"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: results))) as? [String: Any])
        let entries = try #require(json["results"] as? [[String: Any]])
        #expect(entries.map { $0["actual_result"] as? String } == ["SUCCESS", "FAILURE", "SUCCESS", "FAILURE", "SKIPPED"])
        #expect((entries[1]["context"] as? String)?.hasPrefix("expired") == true)

        // Without the default skips the policy-constraints case runs (and is falsely accepted:
        // the engine processes no certificate policies).
        let all = await tsec(["limbo", path, "--no-default-skips"])
        #expect(all.output.stdout.hasSuffix("2 passed, 3 failed, 0 skipped\n"))
        // A feature skipped on request.
        let fewer = await tsec(["limbo", path, "--no-default-skips", "--skip-feature", "has-policy-constraints"])
        #expect(fewer.output.stdout.hasSuffix("2 passed, 2 failed, 1 skipped\n"))
        // The stock verifier (swift-certificates' RFC5280Policy and ServerIdentityPolicy), as the
        // benchmarks compare it: the same verdicts on these cases, and on a leaf without
        // subjectAltName whose common name is the host, the stock verifier's fallback to the
        // common name accepts what the engine refuses.
        let stock = await tsec(["limbo", path, "--verifier", "stock"])
        #expect(stock.status == 1)
        #expect(stock.output.stdout.hasSuffix("2 passed, 2 failed, 1 skipped\n"), "\(stock.output.stdout)")
        #expect(stock.output.stdout.contains("rfc5280                 0             1             1            0        0"))
        let commonNameOnly = try lab.pki.issue(.server(lab.host, dnsNames: []), by: lab.intermediate)
        let fallback = try write([testcase("webpki::cn-only", chain: [commonNameOnly, lab.intermediate], host: lab.host, expected: "FAILURE")])
        #expect(await tsec(["limbo", fallback]).output.stdout.hasSuffix("1 passed, 0 failed, 0 skipped\n"))
        #expect(await tsec(["limbo", fallback, "--verifier", "stock"]).output.stdout.hasSuffix("0 passed, 1 failed, 0 skipped\n"))
    }

    @Test("a case's CRLs are checked: every certificate but the anchor must be shown unrevoked by one of them")
    func revocationLists() async throws {
        func crl(by issuer: IssuedCertificate, revoking: [IssuedCertificate], crlNumber: Int? = 1) throws -> String {
            let der = try issuer.revocationList(revoking: revoking, thisUpdate: lab.pki.now.addingTimeInterval(-60), nextUpdate: lab.pki.now.addingTimeInterval(3_600), crlNumber: crlNumber)
            return PEMDocument(type: "X509 CRL", derBytes: der).pemString
        }
        func withCRLs(_ id: String, expected: String, _ crls: [String]) -> [String: Any] {
            var testcase = testcase(id, chain: lab.chain(.legitimate), host: lab.host, expected: expected, features: ["has-crl"])
            testcase["crls"] = crls
            return testcase
        }
        let path = try write([
            withCRLs("crl::revoked", expected: "FAILURE", [try crl(by: lab.intermediate, revoking: [lab.leaf]), try crl(by: lab.root, revoking: [])]),
            withCRLs("crl::not-revoked", expected: "SUCCESS", [try crl(by: lab.intermediate, revoking: []), try crl(by: lab.root, revoking: [])]),
            withCRLs("crl::intermediate-unchecked", expected: "FAILURE", [try crl(by: lab.intermediate, revoking: [])]),
            withCRLs("crl::no-crl-number", expected: "FAILURE", [try crl(by: lab.intermediate, revoking: [], crlNumber: nil), try crl(by: lab.root, revoking: [])]),
            withCRLs("crl::garbage", expected: "FAILURE", [garbagePEMBlock("X509 CRL")]),
        ])
        let results = path + ".results.json"
        let run = await tsec(["limbo", path, "--json", results])
        #expect(run.status == 0)
        #expect(run.output.stdout.hasSuffix("5 passed, 0 failed, 0 skipped\n"), "\(run.output.stdout)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: results))) as? [String: Any])
        let contexts = try #require(json["results"] as? [[String: Any]]).map { $0["context"] as? String ?? "" }
        #expect(contexts[0].contains("is revoked (listed in a CRL of the policy"), "\(contexts[0])")
        #expect(contexts[2].contains("no current revocation answer for \(lab.intermediate.der.subjectSummary)"), "\(contexts[2])")
        #expect(contexts[3].contains("it has no CRL number"), "\(contexts[3])")
        #expect(contexts[4].hasPrefix("unparsable input: crls[0]"), "\(contexts[4])")
    }

    @Test("a clean run exits 0; unreadable input exits 2")
    func statuses() async throws {
        let path = try write([testcase("webpki::good", chain: lab.chain(.legitimate), host: lab.host, expected: "SUCCESS")])
        let clean = await tsec(["limbo", path])
        #expect(clean.status == 0)
        #expect(clean.output.stdout.hasSuffix("1 passed, 0 failed, 0 skipped\n"))
        #expect(await tsec(["limbo", "/no/such/limbo.json"]).status == 2)
        // A results file that cannot be written is refused before any case runs.
        let unwritable = await tsec(["limbo", path, "--json", "/no/such/folder/results.json"])
        #expect(unwritable.status == 2)
        #expect(unwritable.output.stderr == "tsec limbo: cannot write /no/such/folder/results.json: No such file or directory\n")
        #expect(unwritable.output.stdout.isEmpty, "no case ran: \(unwritable.output.stdout)")
        let garbage = NSTemporaryDirectory() + "limbo-garbage-\(UUID().uuidString).json"
        try Data("{\"testcases\": 3}".utf8).write(to: URL(fileURLWithPath: garbage))
        let refused = await tsec(["limbo", garbage])
        #expect(refused.status == 2)
        #expect(refused.output.stderr == "tsec limbo: \(garbage): testcases: expected an array\n")
        try Data("{\"testcases\": [".utf8).write(to: URL(fileURLWithPath: garbage))
        #expect(await tsec(["limbo", garbage]).output.stderr == "tsec limbo: \(garbage): not JSON (unexpected end of file during JSON parse)\n")
    }
}
