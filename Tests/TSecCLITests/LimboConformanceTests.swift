import Foundation
import TSecCLI
import TestServers
import Testing

/// The whole x509-limbo suite (Tests/Fixtures/x509-limbo) through `tsec limbo`: no false accept
/// beyond the two named below, no case over budget, at least 9,765 passes.
@Suite("x509-limbo conformance")
struct LimboConformanceTests {
    static let suitePath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/x509-limbo/limbo.json.gz").path

    /// Cases where limbo contradicts itself. These two expect a leaf whose well-formed host-name
    /// common name is not among its subjectAltNames to be refused, while over 300 BetterTLS
    /// name-constraints cases expect exactly such leaves (CN=bad.example.com with the SAN
    /// test.localhost) to validate, the common name being ignored. The engine sides with
    /// BetterTLS, as Go and rustls-webpki do; `CommonNamePolicy` refuses the malformed common
    /// names (non-canonical addresses, non-ASCII host names, case-changed copies) that no
    /// BetterTLS case relies on.
    static let knownFalseAccepts: Set<String> = ["webpki::cn::not-in-san", "webpki::cn::punycode-not-in-san"]

    /// A CA certificate in the leaf position is refused by design (a CA is not a server
    /// certificate); limbo's RFC 5280 reading accepts it.
    static let knownFalseRejects: Set<String> = ["rfc5280::ca-as-leaf", "pathlen::validation-ignores-pathlen-in-leaf"]

    struct Outcomes {
        var passed = 0
        var falseAccepts: Set<String> = []
        var falseRejects: Set<String> = []
        var skipped = 0
    }

    /// Compares the harness's results with the suite's expectations.
    static func outcomes(results: Data, suite: Data) throws -> Outcomes {
        let expected = try #require(try JSONSerialization.jsonObject(with: suite) as? [String: Any])
        let cases = try #require(expected["testcases"] as? [[String: Any]])
        let expectations = Dictionary(uniqueKeysWithValues: cases.compactMap { testcase in
            (testcase["id"] as? String).map { ($0, testcase["expected_result"] as? String ?? "") }
        })
        let actual = try #require(try JSONSerialization.jsonObject(with: results) as? [String: Any])
        var outcomes = Outcomes()
        for entry in try #require(actual["results"] as? [[String: Any]]) {
            let id = entry["id"] as? String ?? ""
            switch (entry["actual_result"] as? String, expectations[id]) {
            case ("SKIPPED", _): outcomes.skipped += 1
            case (let result?, let expectation?) where result == expectation: outcomes.passed += 1
            case ("SUCCESS", _): outcomes.falseAccepts.insert(id)
            default: outcomes.falseRejects.insert(id)
            }
        }
        return outcomes
    }

    @Test("the whole suite: no unexplained false accept or reject, nothing over budget, at least 9,765 passes")
    func wholeSuite() async throws {
        let results = NSTemporaryDirectory() + "tsec-limbo-results-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: results) }
        let run = await tsec(["limbo", Self.suitePath, "--json", results])
        #expect(run.output.stderr.isEmpty, "\(run.output.stderr)")

        let outcomes = try Self.outcomes(
            results: try Data(contentsOf: URL(fileURLWithPath: results)),
            suite: Data(try shell("gzip -dc '\(Self.suitePath)'").utf8)
        )
        #expect(outcomes.falseAccepts == Self.knownFalseAccepts, "false accepts: \(outcomes.falseAccepts.sorted())")
        #expect(outcomes.falseRejects == Self.knownFalseRejects, "false rejects: \(outcomes.falseRejects.sorted())")
        #expect(outcomes.passed >= 9_765, "\(outcomes.passed) passed")
        // The features skipped by default, and nothing else, are skipped (10 cases today).
        #expect(outcomes.skipped == 10, "\(outcomes.skipped) skipped")
        let table = run.output.stdout
        #expect(table.contains("\(outcomes.passed) passed, \(outcomes.falseAccepts.count + outcomes.falseRejects.count) failed, \(outcomes.skipped) skipped"), "\(table)")
        // Over budget would show as a failure without a matching false accept or reject; the
        // table's column says it directly.
        let rows = table.split(separator: "\n").dropFirst().prefix { !$0.hasPrefix("whole run") }
        #expect(rows.count >= 9)
        let overBudget = rows.compactMap { line -> Int? in
            let columns = line.split(separator: " ")
            return columns.count == 6 ? Int(columns[4]) : nil
        }
        #expect(overBudget.allSatisfy { $0 == 0 }, "\(table)")
    }
}
