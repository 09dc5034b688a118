import ArgumentParser
import Foundation
import TransportSecurity

/// `tsec limbo FILE`: runs C2SP's x509-limbo suite through the engine and tells, per namespace,
/// how many cases passed, were falsely accepted or rejected, or were skipped.
public struct LimboCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "limbo",
        abstract: "Run the x509-limbo path-validation suite (JSON, plain or .gz) through the engine.",
        discussion: """
            SERVER cases go through server-trust evaluation (ssl policy with the case's peer name, \
            anchors only, the case's time and maximum depth); CLIENT cases through the client \
            policy (clientAuth). Each case has a time budget: over it counts as a failure. The last \
            line is `N passed, N failed, N skipped`. `--verifier stock` runs the same cases through \
            swift-certificates' stock verifier instead, for comparison. Exit status: 0 no false \
            accept, 1 false accepts or cases over budget, 2 unreadable input.
            """
    )

    /// Features skipped unless asked for, each with the reason (README.md lists them).
    static let defaultSkippedFeatures: [String: String] = [
        "has-policy-constraints": "certificate policies are not processed (no policy tree), as in the web PKI",
        "pedantic-webpki-eku": "CA/Browser Forum issuance rules on EKU (a leaf must have one, not critical, without anyExtendedKeyUsage; a root must have none) would refuse private PKIs that clients accept; the EKU a leaf or intermediate has must allow the TLS role",
        "rfc5280-incompatible-with-webpki": "the engine follows the web PKI where RFC 5280 and it disagree (non-critical name constraints are honoured)",
        "pedantic-rfc5280": "an anchor is trusted as it is: a cross-signed CA used as an anchor needs no authority key identifier (cve-2024-0567's valid chain relies on this)",
        "pedantic-public-suffix-wildcard": "a wildcard over a suffix of the public suffix list's private section (*.s3.amazonaws.com, *.github.io) is accepted, as Chrome and Firefox accept it: those services serve such certificates; over an ICANN-section suffix (*.com, *.co.uk) it is refused",
    ]

    @Argument(help: "The limbo file (limbo.json or limbo.json.gz).")
    var file: String

    @Option(name: .customLong("json"), help: "Write the results in limbo's result format to this file.")
    var jsonOutput: String?

    @Option(help: "Skip cases with this feature (besides the default ones). Repeatable.")
    var skipFeature: [String] = []

    @Flag(help: "Run the features skipped by default too.")
    var noDefaultSkips = false

    @Option(help: "The time budget of one case, in milliseconds.")
    var caseBudget: Int = 1_000

    /// Which verifier judges the cases.
    enum VerifierChoice: String, ExpressibleByArgument, CaseIterable {
        /// This library's server-trust engine.
        case engine
        /// swift-certificates' `Verifier { RFC5280Policy; ServerIdentityPolicy }`, for comparison.
        case stock
    }

    @Option(help: "engine (this library) or stock (swift-certificates' RFC5280Policy and ServerIdentityPolicy, for comparison).")
    var verifier: VerifierChoice = .engine

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Refuses a case budget that would fail every case or never end one.
    public func validate() throws {
        guard (1...3_600_000).contains(caseBudget) else {
            throw ValidationError("--case-budget must be between 1 and 3600000 milliseconds (an hour), not \(caseBudget)")
        }
    }

    struct Result: Encodable {
        let id: String
        let actualResult: String
        let context: String?

        enum CodingKeys: String, CodingKey {
            case id
            case actualResult = "actual_result"
            case context
        }
    }

    struct Results: Encodable {
        let version = 1
        let harness = "tsec"
        let results: [Result]
    }

    enum Outcome {
        case passed, falseAccept, falseReject, overBudget, skipped
    }

    /// Runs every case of the limbo file and prints the table; returns 0 with no false accept, 1
    /// otherwise, 2 for unreadable input.
    public func execute(output: CommandOutput) async -> Int32 {
        let document: LimboDocument
        let json: Data
        do {
            json = try Self.read(file)
        } catch {
            output.error("tsec limbo: \(error)")
            return ExitStatus.usageOrInput
        }
        do {
            document = try JSONDecoder().decode(LimboDocument.self, from: json)
        } catch {
            output.error("tsec limbo: \(file): \(DecodingErrorText.describe(error, document: "the suite", json: json))")
            return ExitStatus.usageOrInput
        }
        let resultsFile: ReservedOutputFile?
        do {
            resultsFile = try jsonOutput.map { path throws(FileWriteFailure) in try ReservedOutputFile(path) }
        } catch {
            output.error("tsec limbo: \(error)")
            return ExitStatus.usageOrInput
        }
        let skipped = Set(skipFeature).union(noDefaultSkips ? [] : Set(Self.defaultSkippedFeatures.keys))
        let clock = ContinuousClock()
        let started = clock.now
        var results: [Result] = []
        var tally: [String: [Outcome: Int]] = [:]
        var slowest: (id: String, duration: Duration) = ("", .zero)
        let progress = ProgressLine(output: output)
        for (index, testcase) in document.testcases.enumerated() {
            progress.show("tsec limbo: \(index + 1)/\(document.testcases.count) \(testcase.id)")
            let (outcome, result, duration) = await run(testcase, skipping: skipped)
            results.append(result)
            tally[testcase.namespace, default: [:]][outcome, default: 0] += 1
            if duration > slowest.duration { slowest = (testcase.id, duration) }
        }
        progress.finish()
        let total = clock.now - started
        report(tally, slowest: slowest, total: total, to: output)
        if let resultsFile {
            do {
                try resultsFile.finish(with: Data(JSONOutput.encode(Results(results: results)).utf8))
            } catch {
                output.error("tsec limbo: \(error)")
                return ExitStatus.usageOrInput
            }
        }
        let bad = tally.values.reduce(0) { $0 + ($1[.falseAccept] ?? 0) + ($1[.overBudget] ?? 0) }
        return bad == 0 ? ExitStatus.success : ExitStatus.rejected
    }

    /// Evaluates one case within its budget.
    private func run(_ testcase: LimboCase, skipping skipped: Set<String>) async -> (Outcome, Result, Duration) {
        if let reason = testcase.unsupportedReason(skipping: skipped) {
            return (.skipped, Result(id: testcase.id, actualResult: "SKIPPED", context: reason), .zero)
        }
        let trust: ServerTrust
        let revocation: RevocationPolicy?
        do {
            trust = try testcase.trust()
            revocation = try testcase.revocationPolicy()
        } catch {
            // A certificate the engine cannot parse is a rejection.
            let outcome: Outcome = testcase.expectedResult == "FAILURE" ? .passed : .falseReject
            return (outcome, Result(id: testcase.id, actualResult: "FAILURE", context: "unparsable input: \(error)"), .zero)
        }
        let clock = ContinuousClock()
        let started = clock.now
        let verdict = await Self.withinBudget(.milliseconds(caseBudget)) { [verifier] in
            switch verifier {
            case .engine:
                let host = testcase.expectedPeerName?.value ?? ""
                let decision = if let revocation {
                    await RevocationEvaluator(LimboCaseEvaluator(), policy: revocation).evaluate(trust, forHost: host)
                } else {
                    await LimboCaseEvaluator().evaluate(trust, forHost: host)
                }
                return (decision.isTrusted, decision.reason)
            case .stock:
                return (await LimboStockVerifier.accepts(trust), nil)
            }
        }
        let duration = clock.now - started
        guard let verdict else {
            return (.overBudget, Result(id: testcase.id, actualResult: "FAILURE", context: "over the \(caseBudget) ms budget"), duration)
        }
        let accepted = verdict.accepted
        let outcome: Outcome
        switch (accepted, testcase.expectedResult == "SUCCESS") {
        case (true, true), (false, false): outcome = .passed
        case (true, false): outcome = .falseAccept
        case (false, true): outcome = .falseReject
        }
        let context = accepted ? nil : verdict.reason
        return (outcome, Result(id: testcase.id, actualResult: accepted ? "SUCCESS" : "FAILURE", context: context), duration)
    }

    /// The verdict, or `nil` when it takes longer than `budget`: the evaluation is then
    /// abandoned (it runs on in a detached task until it ends) and the run goes on.
    private static func withinBudget(
        _ budget: Duration,
        _ evaluate: @escaping @Sendable () async -> (accepted: Bool, reason: String?)
    ) async -> (accepted: Bool, reason: String?)? {
        let (answers, continuation) = AsyncStream.makeStream(of: (accepted: Bool, reason: String?)?.self)
        Task.detached { continuation.yield(await evaluate()) }
        Task.detached {
            try? await Task.sleep(for: budget)
            continuation.yield(nil)
        }
        for await first in answers {
            continuation.finish()
            return first
        }
        return nil
    }

    private func report(_ tally: [String: [Outcome: Int]], slowest: (id: String, duration: Duration), total: Duration, to output: CommandOutput) {
        func count(_ outcome: Outcome) -> Int { tally.values.reduce(0) { $0 + ($1[outcome] ?? 0) } }
        output.line("namespace          passed  false-accept  false-reject  over-budget  skipped")
        for namespace in tally.keys.sorted() {
            let row = tally[namespace] ?? [:]
            output.line(
                namespace.padding(toLength: 17, withPad: " ", startingAt: 0)
                    + [row[.passed], row[.falseAccept], row[.falseReject], row[.overBudget], row[.skipped]]
                    .enumerated().map { index, value in String(value ?? 0).leftPadded(to: [8, 14, 14, 13, 9][index]) }.joined()
            )
        }
        output.line("whole run \(total.formatted(.units(allowed: [.seconds, .milliseconds]))); slowest case \(slowest.id) (\(slowest.duration.formatted(.units(allowed: [.milliseconds]))))")
        let failed = count(.falseAccept) + count(.falseReject) + count(.overBudget)
        output.line("\(count(.passed)) passed, \(failed) failed, \(count(.skipped)) skipped")
    }

    /// The file's bytes, gunzipped when it is gzip (by `gzip -dc`, which every Debian has).
    static func read(_ path: String) throws -> Data {
        let data: Data
        do {
            data = try InputFile.read(path, limit: 1 << 30)
        } catch {
            throw TransportSecurityConfigurationError(source: path, reason: "the file cannot be read: \(error)")
        }
        guard data.starts(with: [0x1F, 0x8B]) else { return data }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-dc", path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let plain = output.fileHandleForReading.readDataToEndOfFile()
        exited.wait()
        guard process.terminationStatus == 0 else {
            throw TransportSecurityConfigurationError(source: path, reason: "gzip could not decompress it (status \(process.terminationStatus))")
        }
        return plain
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? " " + self : String(repeating: " ", count: width - count) + self
    }
}

