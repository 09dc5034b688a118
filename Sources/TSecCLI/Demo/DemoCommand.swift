import ArgumentParser
import Foundation
import LabServers
import PKIBuilder
import TransportSecurity

/// `tsec demo`: what each security configuration really protects against.
///
/// Generates the lab's PKI in memory, starts its servers on 127.0.0.1, requests each of them over
/// HTTPS through `SecureSession` with each of the ten configurations of a security policy, and prints the matrix.
public struct DemoCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Show what each security configuration lets through: the attack lab.",
        discussion: """
            Starts ten HTTPS servers on 127.0.0.1 (legitimate, two men in the middle, self-signed, \
            wrong host, expired, not yet valid, re-issued with the same and with a new key, and an \
            attacker who sends their own leaf followed by the genuine leaf, intermediate and root) \
            and requests each with every configuration. Exit status 0 when every cell matches its \
            documented outcome, 1 otherwise.
            """
    )

    @Flag(help: "Print the matrix as JSON.")
    var json = false

    @Flag(help: "Keep the lab servers running and print their URLs, the root to trust and the pins; Ctrl-C stops them.")
    var serve = false

    @Flag(help: "No colour, even on a terminal.")
    var noColor = false

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Runs the ten configurations against the lab servers and prints the table; returns 0 when
    /// every cell matches the documented outcome, 1 otherwise (with `--serve`, serves until interrupted).
    public func execute(output: CommandOutput) async -> Int32 {
        let servers: TrustLabServers
        do {
            // Valid around the real time, so that the served lab works with `tsec get` as is.
            servers = try await TrustLabServers.start(TrustLab(pki: PKI(now: Date())))
        } catch {
            output.error("tsec demo: cannot start the lab: \(error)")
            return ExitStatus.usageOrInput
        }
        let matrix = await DemoMatrix.measure(servers)
        if json {
            output.line(JSONOutput.encode(matrix))
        } else {
            DemoReport(matrix: matrix, colored: !noColor && TerminalColor.allowed(onDescriptor: 1)).print(to: output)
        }
        if serve {
            do {
                try await DemoServing(servers: servers).serveUntilInterrupted(output: output)
            } catch {
                output.error("tsec demo --serve: \(error)")
                await servers.stop()
                return ExitStatus.usageOrInput
            }
        }
        await servers.stop()
        return matrix.matchesSpecification ? ExitStatus.success : ExitStatus.rejected
    }
}
