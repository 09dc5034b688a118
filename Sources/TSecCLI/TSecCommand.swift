import ArgumentParser

/// A `tsec` subcommand: does its work against a ``CommandOutput`` and returns its exit status,
/// so tests run it in-process and read what it printed.
public protocol TSecCommand: AsyncParsableCommand {
    /// Runs the command; the result is the process exit status.
    func execute(output: CommandOutput) async -> Int32
}

extension TSecCommand {
    /// Runs against the standard streams and exits with the command's status.
    public func run() async throws {
        let status = await execute(output: .standardStreams())
        if status != 0 { throw ExitCode(status) }
    }
}

/// The exit statuses shared by the commands.
public enum ExitStatus {
    /// Success; for `evaluate`, trusted.
    public static let success: Int32 = 0
    /// The answer is no: rejected, invalid.
    public static let rejected: Int32 = 1
    /// Bad usage or unreadable input.
    public static let usageOrInput: Int32 = 2
    /// A connection, TLS, timeout or redirect failure (`tsec get`).
    public static let connectionFailure: Int32 = 3
    /// Refused by transport rules (`tsec get --config`).
    public static let refusedByTransportRules: Int32 = 4
    /// `tsec grpc-health`: the call failed with a status the server gave (`NOT_FOUND`,
    /// `UNIMPLEMENTED`, …).
    public static let rpcFailure: Int32 = 5
    /// `tsec grpc-health`: the server answered, and not `SERVING`.
    public static let notServing: Int32 = 6
    /// `tsec get -f`: the server answered with an HTTP status of 400 or more (curl's 22).
    public static let httpError: Int32 = 22
}
