import ArgumentParser
import Foundation
import PKIBuilder
import TransportSecurity

/// `tsec demo`: what each security configuration really protects against.
///
/// This version evaluates the lab's server chains in memory; real TLS servers on 127.0.0.1 come
/// with the session layer.
public struct DemoCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Show what each security configuration lets through: the attack lab.",
        discussion: "Exit status 0 when every cell matches SPEC §2's expected outcome, 1 otherwise."
    )

    @Flag(help: "Print the matrix as JSON.")
    var json = false

    @Flag(help: "No colour, even on a terminal.")
    var noColor = false

    /// Creates the command (for ArgumentParser).
    public init() {}

    struct Cell: Encodable {
        let server: String
        let outcome: String
        let expected: String
        let reason: String
    }

    struct Row: Encodable {
        let name: String
        let summary: String
        let cells: [Cell]
    }

    struct Matrix: Encodable {
        let servers: [String]
        let configurations: [Row]
    }

    public func execute(output: CommandOutput) async -> Int32 {
        let lab: TrustLab
        do {
            lab = try TrustLab()
        } catch {
            output.error("tsec demo: cannot generate the lab PKI: \(error)")
            return ExitStatus.usageOrInput
        }
        let store = TrustStore(lab.systemRoots.map(\.der), origin: "lab system store")
        var rows: [Row] = []
        for configuration in DemoConfiguration.all(for: lab) {
            var cells: [Cell] = []
            for server in TrustLab.Server.allCases {
                let trust = ServerTrust(chain: lab.chain(server).map(\.der), policy: .ssl(lab.host), systemStore: store, evaluationTime: lab.pki.now)
                let decision = await configuration.evaluator.evaluate(trust, forHost: lab.host)
                cells.append(
                    Cell(
                        server: server.label,
                        outcome: decision.isTrusted ? "allowed" : "blocked",
                        expected: configuration.expectedAllowed.contains(server) ? "allowed" : "blocked",
                        reason: decision.isTrusted ? "" : Self.shortReason(decision)
                    )
                )
            }
            rows.append(Row(name: configuration.name, summary: configuration.summary, cells: cells))
        }
        let matrix = Matrix(servers: TrustLab.Server.allCases.map(\.label), configurations: rows)
        let allMatch = rows.allSatisfy { $0.cells.allSatisfy { $0.outcome == $0.expected } }
        if json {
            output.line(JSONOutput.encode(matrix))
        } else {
            DemoReport(matrix: matrix, colored: !noColor && isatty(1) == 1).print(to: output)
        }
        return allMatch ? ExitStatus.success : ExitStatus.rejected
    }

    /// One line: the rule or evaluator that decided, and the first concrete failure.
    static func shortReason(_ decision: TrustDecision) -> String {
        let decider = decision.rule.map { "rule \($0.rawValue)" } ?? decision.decidedBy
        if let failure = decision.lastEvaluation?.failures.first, decision.pinMismatch == nil {
            return "\(decider): \(failure.code.rawValue) (\(failure.description))"
        }
        return "\(decider): \(decision.reason)"
    }
}

/// The matrix, legend and advice as text.
struct DemoReport {
    let matrix: DemoCommand.Matrix
    let colored: Bool

    func print(to output: CommandOutput) {
        let nameWidth = matrix.configurations.map(\.name.count).max() ?? 10
        let columnWidth = max(6, (matrix.servers.map(\.count).max() ?? 6) + 1)
        output.line("TransportSecurity attack lab: every configuration against every server (in-memory chains, fixed clock)")
        output.line("")
        output.line(pad("", nameWidth) + "  " + matrix.servers.map { pad($0, columnWidth) }.joined())
        for row in matrix.configurations {
            let marks = row.cells.map { cell -> String in
                let mark = cell.outcome == "allowed" ? "allowed" : "blocked"
                let flagged = cell.outcome != cell.expected ? mark + "!" : mark
                return paint(pad(flagged, columnWidth), allowed: cell.outcome == "allowed")
            }
            output.line(pad(row.name, nameWidth) + "  " + marks.joined())
        }
        output.line("")
        output.line("Legend: why each blocked cell was blocked; ⚠ marks configurations a man in the middle gets through.")
        for row in matrix.configurations {
            let letsProxyThrough = row.cells.contains { $0.server == "mitm-trusted" && $0.outcome == "allowed" }
            let letsRogueThrough = row.cells.contains { $0.server == "mitm-untrusted" && $0.outcome == "allowed" }
            var flags: [String] = []
            if letsProxyThrough { flags.append("lets an intercepting proxy with a user-installed root through") }
            if letsRogueThrough { flags.append("lets ANY man in the middle through") }
            output.line("  \(row.name) — \(row.summary)\(flags.isEmpty ? "" : "  ⚠ " + flags.joined(separator: "; "))")
            for cell in row.cells where cell.outcome == "blocked" {
                output.line("      \(cell.server): \(cell.reason.split(separator: "\n").first ?? "")")
            }
        }
        let mismatches = matrix.configurations.flatMap { row in row.cells.filter { $0.outcome != $0.expected }.map { "\(row.name)/\($0.server)" } }
        output.line("")
        output.line("Advice:")
        output.line("  • Public CA certificate, one server you control: pin the public key of your root or intermediate (4 key:root) — survives re-issues and key changes of the leaf, and stops intercepting proxies.")
        output.line("  • Pin the leaf key only with a backup pin (pin set) — a new leaf key without the backup locks clients out.")
        output.line("  • Self-signed server: certificate pinning with allowInvalidCertificates (9) checks dates and host against your pinned certificate alone.")
        output.line("  • Never ship configuration 3 or 6 without domain validation: they let expired or any-host certificates through.")
        output.line("")
        output.line(mismatches.isEmpty ? "Every cell matches SPEC §2." : "MISMATCH with SPEC §2 in: \(mismatches.joined(separator: ", "))")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private func paint(_ text: String, allowed: Bool) -> String {
        guard colored else { return text }
        return (allowed ? "\u{1B}[32m" : "\u{1B}[31m") + text + "\u{1B}[0m"
    }
}
