import ArgumentParser
import Foundation

/// The `tsec` command line tool.
public struct TSec: AsyncParsableCommand {
    /// The subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "tsec",
        abstract: "Server-trust evaluation, certificate and public-key pinning.",
        version: version,
        subcommands: subcommands
    )

    /// The version `tsec --version` prints: the package's, as CHANGELOG.md names it.
    public static let version = "0.1.0-dev"

    /// Every subcommand, `grpc-health` only with the package's `GRPC` trait (on by default).
    static var subcommands: [any ParsableCommand.Type] {
        var commands: [any ParsableCommand.Type] = [PinCommand.self, EvaluateCommand.self, GetCommand.self, FetchChainCommand.self]
        #if GRPC
        commands.append(GRPCHealthCommand.self)
        #endif
        commands += [
            ConvertCommand.self, InspectCommand.self, LintCommand.self, ATSDiagnoseCommand.self, LimboCommand.self,
            ReachabilityCommand.self, PinsCommand.self, VerifySignatureCommand.self, DemoCommand.self,
        ]
        return commands
    }

    /// Creates the root command.
    public init() {}

    /// Parses `arguments` and runs the chosen subcommand; returns the exit status. Usage errors
    /// print the message and usage to stderr and give status 2.
    public static func run(arguments: [String], output: CommandOutput) async -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            if let command = command as? any TSecCommand {
                return await command.execute(output: output)
            }
            // `tsec`, `tsec help X` and `tsec X --help` parse as the root or as the parser's own
            // help command, whose `run` throws the request for the right help screen.
            try command.run()
            output.line(helpMessage())
            return ExitStatus.success
        } catch {
            if exitCode(for: error) == .success {
                output.line(fullMessage(for: error))
                return ExitStatus.success
            }
            output.error(fullMessage(for: error))
            return ExitStatus.usageOrInput
        }
    }
}
