import Foundation
import LabServers
import Logging
import PKIBuilder
import SecureSession
import TransportSecurity

/// The demo's result: for every configuration, what happened when it requested every lab
/// server over real HTTPS, and what the policy's rules say it should be. Encoded as `tsec demo --json`.
struct DemoMatrix: Encodable {
    struct Cell: Encodable {
        let server: String
        /// `allowed` or `blocked`.
        let outcome: String
        /// What the policy's rules say: `allowed` or `blocked`.
        let expected: String
        /// Why the cell was blocked (empty when allowed).
        let reason: String
    }

    struct Row: Encodable {
        let name: String
        let summary: String
        /// Whether a chain that does not validate is refused (``DemoConfiguration/validatesChain``).
        let validatesChain: Bool
        let cells: [Cell]
    }

    let servers: [String]
    let configurations: [Row]

    /// Whether every cell has the outcome the policy's rules say.
    var matchesSpecification: Bool { mismatches.isEmpty }

    /// `configuration/server` of every cell whose outcome is not the expected one.
    var mismatches: [String] {
        configurations.flatMap { row in row.cells.filter { $0.outcome != $0.expected }.map { "\(row.name)/\($0.server)" } }
    }

    /// Requests every server of `servers` with every configuration, each through a
    /// ``SecureSession`` of its own that connects to 127.0.0.1 for the lab's host.
    static func measure(_ servers: TrustLabServers) async -> DemoMatrix {
        let lab = servers.lab
        let store = TrustStore(lab.systemRoots.map(\.der), origin: "lab system store")
        let overrides = TrustLab.Server.allCases.map { AddressOverride(host: lab.host, port: servers.ports[$0] ?? 0, address: "127.0.0.1") }
        var rows: [Row] = []
        for configuration in DemoConfiguration.all(for: lab) {
            let session = SecureSession(configuration: SecureSessionConfiguration(
                tls: .init(
                    trustEvaluator: configuration.evaluator,
                    systemStore: store,
                    evaluationTime: lab.pki.now,
                    decisionCache: nil
                ),
                connections: .init(addressOverrides: overrides),
                timeouts: .init(connect: .seconds(5), request: .seconds(5)),
                responses: .init(validation: .none),
                // Every rejection is in the matrix; the session's notices would repeat them.
                logger: Logger(label: "tsec.demo", factory: { _ in SwiftLogNoOpLogHandler() })
            ))
            let cells = await withTaskGroup(of: (Int, Cell).self) { group in
                for (index, server) in TrustLab.Server.allCases.enumerated() {
                    group.addTask {
                        let (allowed, reason) = await request(servers.url(server), with: session)
                        let expected = configuration.expectedAllowed.contains(server)
                        return (index, Cell(server: server.label, outcome: outcome(allowed), expected: outcome(expected), reason: reason))
                    }
                }
                var cells: [(Int, Cell)] = []
                for await cell in group { cells.append(cell) }
                return cells.sorted { $0.0 < $1.0 }.map(\.1)
            }
            await session.shutdown()
            rows.append(Row(name: configuration.name, summary: configuration.summary, validatesChain: configuration.validatesChain, cells: cells))
        }
        return DemoMatrix(servers: TrustLab.Server.allCases.map(\.label), configurations: rows)
    }

    private static func outcome(_ allowed: Bool) -> String { allowed ? "allowed" : "blocked" }

    /// One HTTPS request: whether a response came back, else why not in one line.
    private static func request(_ url: URL, with session: SecureSession) async -> (allowed: Bool, reason: String) {
        do {
            _ = try await session.get(url)
            return (true, "")
        } catch let failure as SecureSessionError {
            return (false, failure.trustDecision.map(shortReason) ?? "request failed: \(failure)")
        } catch {
            return (false, "request failed: \(error)")
        }
    }

    /// One line: the rule or evaluator that decided, and the first concrete failure of the
    /// validation it relied on (against the pinned certificates for the pinning rules); for
    /// key pinning, which decides after a failed validation, the pin's own reason.
    static func shortReason(_ decision: TrustDecision) -> String {
        let decider = decision.rule.map { "rule \($0.rawValue)" } ?? decision.decidedBy
        if decision.rule != .publicKeyPinning, let failure = decision.lastEvaluation?.failures.first {
            let context = decision.rule == .certificatePinning ? "not anchored at a pinned certificate, " : ""
            return "\(decider): \(context)\(failure.code.rawValue) — \(failure.description)"
        }
        return "\(decider): \(decision.reason)"
    }
}
