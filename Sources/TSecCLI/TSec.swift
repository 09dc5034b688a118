import ArgumentParser
import Foundation

/// The `tsec` command line tool.
public struct TSec: AsyncParsableCommand {
    /// The subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "tsec",
        abstract: "Server-trust evaluation, certificate and public-key pinning.",
        subcommands: [PinCommand.self, EvaluateCommand.self, GetCommand.self, FetchChainCommand.self, ConvertCommand.self, InspectCommand.self, LintCommand.self, ATSDiagnoseCommand.self, LimboCommand.self, ReachabilityCommand.self, PinsCommand.self, DemoCommand.self]
    )

    /// Creates the root command.
    public init() {}

    /// Parses `arguments` and runs the chosen subcommand; returns the exit status. Usage errors
    /// print the message and usage to stderr and give status 2.
    public static func run(arguments: [String], output: CommandOutput) async -> Int32 {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            let status = exitCode(for: error)
            if status == .success {
                output.line(fullMessage(for: error))
                return ExitStatus.success
            }
            output.error(fullMessage(for: error))
            return ExitStatus.usageOrInput
        }
        guard let command = command as? any TSecCommand else {
            output.line(helpMessage())
            return ExitStatus.success
        }
        return await command.execute(output: output)
    }
}
