import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

@Suite("Pin failure reports (TrustKit's format)")
struct PinFailureReportTests {
    let lab = try! TrustLab()
    let backup = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()

    /// Rules pinning the lab's legitimate leaf key (and a backup) for the lab's host, the set
    /// expiring on `expiration` (`yyyy-MM-dd`) when given.
    func rules(enforce: Bool, reportTo url: URL, expiration: String? = nil, allowingLooserTrust: Bool = false) throws -> TransportSecurityConfiguration {
        var set: [String: Any] = [
            "TSKPublicKeyHashes": [lab.leaf.der.spkiPin.description, backup],
            "TSKEnforcePinning": enforce,
            "TSKIncludeSubdomains": true,
            "TSKReportUris": [url.absoluteString],
        ]
        set["TSKExpirationDate"] = expiration
        var document: [String: Any] = ["TSKPinnedDomains": [lab.host: set]]
        // An app may loosen trust only where ATS allows it: an exception for insecure loads.
        if allowingLooserTrust { document["NSExceptionDomains"] = [lab.host: ["NSExceptionAllowsInsecureHTTPLoads": true]] }
        return try TransportSecurityConfiguration.load(from: JSONSerialization.data(withJSONObject: document)).0
    }

    func session(
        _ rules: TransportSecurityConfiguration, port: Int, reporter: PinFailureReporter? = nil,
        trustEvaluator: any ServerTrustEvaluating = SecurityPolicy.default
    ) -> SecureSession {
        SecureSession(configuration: SecureSessionConfiguration(
            tls: .init(
                trustEvaluator: trustEvaluator,
                systemStore: TrustStore(lab.systemRoots.map(\.der)),
                evaluationTime: lab.pki.now,
                decisionCache: nil,
                transportRules: rules,
                pinFailureReporter: reporter
            ),
            connections: .init(
                addressOverrides: [AddressOverride(host: lab.host, port: port, address: "127.0.0.1")]
            ),
            responses: .init(validation: .none)
        ))
    }

    func url(_ server: HTTPTestServer) -> URL { URL(string: "https://\(lab.host):\(server.port)/hello")! }

    /// Waits until `condition` holds (5 s at most).
    func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<100 where !condition() { try await Task.sleep(for: .milliseconds(50)) }
    }

    @Test("report-only: the request goes through, and TrustKit's report arrives once per day for the same failure")
    func reportOnly() async throws {
        let collector = try await HTTPTestServer(chain: nil)
        let rekeyed = try await HTTPTestServer(chain: lab.chain(.reissuedNewKey))
        let reporter = PinFailureReporter()
        let rules = try rules(enforce: false, reportTo: collector.url("/collect"))
        for _ in 0..<3 {
            let session = session(rules, port: rekeyed.port, reporter: reporter)
            #expect(try await session.get(url(rekeyed)).text == "hello")
            await session.shutdown()
        }
        try await eventually { reporter.currentStatistics.delivered == 1 }
        #expect(reporter.currentStatistics.delivered == 1)
        #expect(reporter.currentStatistics.suppressed == 2)
        let body = try #require(collector.collected.all.first)
        let report = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(report["hostname"] as? String == lab.host)
        #expect(report["port"] as? Int == rekeyed.port)
        #expect(report["noted-hostname"] as? String == lab.host)
        #expect(report["enforce-pinning"] as? Bool == false)
        #expect(report["include-subdomains"] as? Bool == true)
        #expect(report["validation-result"] as? Int == 1)
        #expect(report["known-pins"] as? [String] == ["pin-sha256=\"\(lab.leaf.der.spkiPin.description.dropFirst(7))\"", "pin-sha256=\"\(backup.dropFirst(7))\""])
        let chain = try #require(report["validated-certificate-chain"] as? [String])
        #expect(chain.count == 3, "leaf, intermediate and the root reached")
        #expect(chain.allSatisfy { $0.contains("CERTIFICATE") })
        #expect(report["date-time"] is String)
        #expect(report["app-platform"] is String)
        await collector.stop()
        await rekeyed.stop()
    }

    @Test("enforced: the request fails with the pins in its decision, and the failure is reported")
    func enforced() async throws {
        let collector = try await HTTPTestServer(chain: nil)
        let rekeyed = try await HTTPTestServer(chain: lab.chain(.reissuedNewKey))
        let reporter = PinFailureReporter()
        let session = session(try rules(enforce: true, reportTo: collector.url("/collect")), port: rekeyed.port, reporter: reporter)
        await #expect {
            _ = try await session.get(url(rekeyed))
        } throws: { error in
            guard case .trustRejected(let decision)? = error.sessionFailureReason else { return false }
            return decision.decider == TransportRuleEvaluator.decider && decision.pinMismatch != nil
        }
        try await eventually { !collector.collected.all.isEmpty }
        let body = try #require(collector.collected.all.first)
        let report = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(report["enforce-pinning"] as? Bool == true)
        await session.shutdown()
        await collector.stop()
        await rekeyed.stop()
    }

    @Test("a chain that does not validate (a man in the middle with an untrusted root) is reported as TrustKit's validation result 2, with the chain presented; not once the pin set has expired")
    func chainNotTrusted() async throws {
        let collector = try await HTTPTestServer(chain: nil)
        let impostor = try await HTTPTestServer(chain: lab.chain(.untrustedRoot))
        for enforce in [true, false] {
            let reporter = PinFailureReporter()
            let session = session(try rules(enforce: enforce, reportTo: collector.url("/collect")), port: impostor.port, reporter: reporter)
            await #expect(throws: SecureSessionError.self) { _ = try await session.get(url(impostor)) }
            try await eventually { reporter.currentStatistics.delivered == 1 }
            #expect(reporter.currentStatistics.delivered == 1, "enforce: \(enforce)")
            await session.shutdown()
        }
        let bodies = collector.collected.all
        #expect(bodies.count == 2)
        for body in bodies {
            let report = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(report["validation-result"] as? Int == 2)
            let chain = try #require(report["validated-certificate-chain"] as? [String])
            let presented = lab.chain(.untrustedRoot).map { $0.der.pemString }
            #expect(chain == presented, "the chain as the server presented it")
        }
        // The set expired the day before the lab's clock: it neither applies nor reports.
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        let yesterday = formatter.string(from: lab.pki.now.addingTimeInterval(-86_400))
        let reporter = PinFailureReporter()
        let session = session(try rules(enforce: true, reportTo: collector.url("/collect"), expiration: yesterday), port: impostor.port, reporter: reporter)
        await #expect(throws: SecureSessionError.self) { _ = try await session.get(url(impostor)) }
        try await Task.sleep(for: .milliseconds(300))
        let statistics = reporter.currentStatistics
        #expect(statistics.delivered + statistics.failed + statistics.dropped + statistics.suppressed + statistics.remembered == 0)
        #expect(collector.collected.all.count == 2)
        await session.shutdown()
        await collector.stop()
        await impostor.stop()
    }

    @Test("a server let through without a validated path (a policy allowing invalid certificates) whose chain misses the pin set is reported with the chain it presented, not an empty one")
    func unvalidatedChainReported() async throws {
        let collector = try await HTTPTestServer(chain: nil)
        let selfSigned = try await HTTPTestServer(chain: [lab.selfSigned])
        let reporter = PinFailureReporter()
        let lenient = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.selfSigned.der], allowInvalidCertificates: true, validatesDomainName: false)
        let session = session(try rules(enforce: false, reportTo: collector.url("/collect"), allowingLooserTrust: true), port: selfSigned.port, reporter: reporter, trustEvaluator: lenient)
        #expect(try await session.get(url(selfSigned)).text == "hello", "report-only: let through")
        try await eventually { reporter.currentStatistics.delivered == 1 }
        let body = try #require(collector.collected.all.first)
        let report = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(report["validation-result"] as? Int == 1)
        #expect(report["validated-certificate-chain"] as? [String] == [lab.selfSigned.der.pemString])
        await session.shutdown()
        await collector.stop()
        await selfSigned.stop()
    }

    @Test("the record of reports sent for the once-a-day rule stays bounded however many distinct failures come")
    func rememberedReportsBounded() async throws {
        let pins = [try SPKIPin(backup), lab.leaf.der.spkiPin]
        let set = DomainPinSet(key: .dnsName("example.test"), pins: pins)
        let reporter = PinFailureReporter(maximumQueue: 1, attempts: 1)
        let start = Date()
        for port in 1...3_000 {
            let report = PinFailureReport(set: set, hostname: "example.test", port: port, chain: [lab.leaf.der], date: start.addingTimeInterval(Double(port)))
            reporter.submit(report, to: [URL(string: "http://127.0.0.1:1/report")!])
        }
        #expect(reporter.currentStatistics.remembered <= PinFailureReporter.rememberedReports)
        #expect(reporter.currentStatistics.remembered > 0)
        // The latest is still remembered: the same failure again is suppressed.
        let latest = PinFailureReport(set: set, hostname: "example.test", port: 3_000, chain: [lab.leaf.der], date: start.addingTimeInterval(3_001))
        reporter.submit(latest, to: [URL(string: "http://127.0.0.1:1/report")!])
        #expect(reporter.currentStatistics.suppressed == 1)
    }

    @Test("a report endpoint that never answers does not slow requests")
    func hangingEndpoint() async throws {
        let collector = try await HTTPTestServer(chain: nil)
        let rekeyed = try await HTTPTestServer(chain: lab.chain(.reissuedNewKey))
        let session = session(try rules(enforce: false, reportTo: collector.url("/never")), port: rekeyed.port)
        let clock = ContinuousClock()
        let started = clock.now
        for _ in 0..<3 { _ = try await session.get(url(rekeyed)) }
        let elapsed = clock.now - started
        // A report waits up to 10 s for the endpoint; a request held by it would take that long.
        // The bound leaves room for a loaded machine (a parallel test run: 0.1 s alone, ~1 s there).
        #expect(elapsed < .seconds(5), "took \(elapsed)")
        await session.shutdown()
        await collector.stop()
        await rekeyed.stop()
    }

    @Test("the queue is bounded and delivery attempts are bounded")
    func bounds() async throws {
        let pins = [try SPKIPin(backup), lab.leaf.der.spkiPin]
        var set = DomainPinSet(key: .dnsName("example.test"), pins: pins)
        set.enforces = false
        let report = PinFailureReport(set: set, hostname: "example.test", port: 443, chain: [lab.leaf.der], date: Date())
        let refused = (1...5).map { URL(string: "http://127.0.0.1:1/report-\($0)")! }
        let reporter = PinFailureReporter(maximumQueue: 2, attempts: 2)
        reporter.submit(report, to: refused)
        #expect(reporter.currentStatistics.dropped == 3)
        try await eventually { reporter.currentStatistics.failed == 2 }
        #expect(reporter.currentStatistics.failed == 2)
        #expect(reporter.currentStatistics.delivered == 0)
    }
}
