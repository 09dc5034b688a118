#if GRPC
import ArgumentParser
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Logging
import NIOConcurrencyHelpers
import TransportSecurity
import TransportSecurityGRPC
import TransportSecurityNIO

/// `tsec grpc-health HOST:PORT`: gRPC's health check (`grpc.health.v1.Health/Check`, what
/// `grpc_health_probe` and Kubernetes' gRPC probes ask) over TLS decided by the policy options
/// of `tsec get`, with pins and a client certificate; `--watch` follows the status as it changes
/// (`Watch`).
public struct GRPCHealthCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "grpc-health",
        abstract: "Ask a gRPC server over pinned or mutual TLS whether it serves (grpc.health.v1.Health/Check, or Watch).",
        discussion: """
            Prints the status the server gave (SERVING, NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN). \
            With --watch, prints it and then each change, with its time, until the server ends the \
            watch, --max-time passes, --until-serving hears SERVING or Ctrl-C; the last status heard \
            decides the exit status.

            Exit status: 0 SERVING, 1 the server's trust was rejected, 2 usage or unreadable input, \
            3 connection, TLS or timeout failure, 5 the call failed with a status (NOT_FOUND: the server \
            does not know the service; UNIMPLEMENTED: it has no health service), 6 answered, not SERVING.
            """
    )

    @Argument(help: "The server, HOST:PORT ([IPv6]:PORT for IPv6) or an https:// URL.")
    var server: String

    @Option(help: "The service asked about, fully qualified (package.Service); the server as a whole when not given.")
    var service = ""

    @OptionGroup var policy: PolicyOptions

    @Option(name: .customLong("pin-sha256"), help: "An SPKI pin (sha256/<base64>) some certificate of the chain must carry. Repeatable.")
    var spkiPins: [String] = []

    @OptionGroup var identity: ClientIdentityOptions

    @Option(help: "The server's name for TLS (SNI and the name its certificate must carry) when HOST is an address or another name.")
    var servername: String?

    @Option(name: .customLong("max-time"), help: "The most seconds the check may take, connection included (default 10); with --watch, the most the watch may last (default: no limit).")
    var maxTime: Double?

    @Flag(help: "Watch the status (grpc.health.v1.Health/Watch): print it, then each change with its time.")
    var watch = false

    @Flag(name: .customLong("until-serving"), help: "With --watch, stop at the first SERVING (exit 0); with --max-time, wait for a server to become ready.")
    var untilServing = false

    @Flag(help: "Print the outcome as JSON: server, service, status or error, exit status and the trust decision (with --watch, first one object per status heard).")
    var json = false

    @Flag(name: [.customShort("v"), .long], help: "Tell on standard error how the server's chain was judged.")
    var verbose = false

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Checks the server argument, the TLS name, the time limit and `--until-serving`.
    public func validate() throws {
        _ = try ServerArgument(server)
        try FetchChainCommand.validate(servername: servername)
        if let maxTime { try TimeLimit.validate(maxTime) }
        guard watch || !untilServing else { throw ValidationError("--until-serving needs --watch") }
    }

    /// A check's time limit when none is given.
    static let defaultCheckSeconds: Double = 10

    /// Asks the server; returns the exit status the command's discussion lists.
    public func execute(output terminal: CommandOutput) async -> Int32 {
        guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else {
            terminal.error("tsec grpc-health: needs macOS 15 or later")
            return ExitStatus.usageOrInput
        }
        guard let target = try? ServerArgument(server) else { return ExitStatus.usageOrInput }
        let decisions = DecisionRecord()
        let transport: HTTP2ClientTransport.Posix
        do {
            let verifier = PeerTrustVerifier(
                evaluator: try policy.makeEvaluator(spkiPins: try spkiPins.map(SPKIPin.init)),
                host: servername ?? target.host,
                systemStore: try policy.makeSystemStore(),
                evaluationTime: policy.evaluationTime,
                cache: nil,
                logger: Logger(label: "tsec.grpc-health") { _ in
                    verbose ? CommandOutputLogHandler(output: terminal, logLevel: .debug) as any LogHandler : SwiftLogNoOpLogHandler()
                }
            )
            let address: any ResolvableTarget =
                ServerHost(target.host).isIPAddress
                ? (target.host.contains(":") ? .ipv6(address: target.host, port: target.port) : .ipv4(address: target.host, port: target.port))
                : .dns(host: target.host, port: target.port)
            // The name given for TLS is the requests' :authority too, as the server knows itself.
            var config = HTTP2ClientTransport.Posix.Config.defaults
            config.http2.authority = servername
            transport = try HTTP2ClientTransport.Posix(
                target: address,
                verifiedBy: verifier,
                identity: try identity.load(),
                config: config,
                onDecision: decisions.record
            )
        } catch {
            return report(.failure("\(error)", status: ExitStatus.usageOrInput), decision: nil, to: terminal)
        }
        var options = CallOptions.defaults
        options.timeout = (maxTime ?? (watch ? nil : Self.defaultCheckSeconds)).map(TimeLimit.duration)
        options.waitForReady = false
        let client = GRPCClient(transport: transport)
        let connections = Task { try await client.runConnections() }
        let outcome: Outcome
        if watch {
            outcome = await watchOutcome(through: client, options: options, printing: terminal)
        } else {
            do {
                outcome = .answered(try await GRPCHealthCheck.status(of: service, through: client, options: options))
            } catch {
                outcome = Self.outcome(of: error)
            }
        }
        // The one call is over. A connection still being made is abandoned, not waited for: to a
        // server whose port drops the connection's SYN, NIO's connect would hold the command 10 s
        // past its time limit.
        client.beginGracefulShutdown()
        connections.cancel()
        return report(outcome, decision: decisions.last, to: terminal)
    }

    /// How a check ended.
    enum Outcome {
        /// The server gave a status.
        case answered(GRPCHealthCheck.ServingStatus)
        /// The check failed, with the message and the exit status.
        case failure(String, status: Int32)

        var exitStatus: Int32 {
            switch self {
            case .answered(.serving): ExitStatus.success
            case .answered: ExitStatus.notServing
            case .failure(_, let status): status
            }
        }
    }

    /// How a watch ended, before the last status heard is looked at.
    private enum WatchEnding: Sendable {
        /// The server ended the call, or `--until-serving` heard SERVING.
        case ended
        /// SIGINT or SIGTERM.
        case interrupted
        /// The call failed.
        case failed(any Error)
    }

    /// Watches the service, printing each status as it comes; the outcome is the last status
    /// heard, whether the server ended the watch, the time limit passed or Ctrl-C stopped it.
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    private func watchOutcome(
        through client: GRPCClient<HTTP2ClientTransport.Posix>,
        options: CallOptions,
        printing terminal: CommandOutput
    ) async -> Outcome {
        let (service, json, untilServing) = (self.service, self.json, self.untilServing)
        let lastHeard = NIOLockedValueBox<GRPCHealthCheck.ServingStatus?>(nil)
        let interruption = Interruption()
        let ending = await withTaskGroup(of: WatchEnding.self) { group in
            group.addTask {
                do {
                    try await GRPCHealthCheck.watch(of: service, through: client, options: options) { statuses in
                        for try await status in statuses {
                            lastHeard.withLockedValue { $0 = status }
                            terminal.line(Self.watchLine(status, at: Date(), json: json))
                            if untilServing, status == .serving { return }
                        }
                    }
                    return .ended
                } catch {
                    return .failed(error)
                }
            }
            group.addTask {
                await interruption.wait()
                return .interrupted
            }
            let first = await group.next() ?? .interrupted
            group.cancelAll()
            return first
        }
        let last = lastHeard.withLockedValue { $0 }
        switch (ending, last) {
        case (.ended, let status?), (.interrupted, let status?):
            return .answered(status)
        case (.failed(let error as RPCError), let status?) where error.code == .deadlineExceeded:
            return .answered(status)
        case (.failed(let error as RPCError), _) where error.code == .unimplemented:
            return .failure("the server does not offer Watch (UNIMPLEMENTED): \(error.message)", status: ExitStatus.rpcFailure)
        case (.failed(let error), _):
            return Self.outcome(of: error)
        case (.ended, nil):
            return .failure("the server ended the watch without giving a status", status: ExitStatus.rpcFailure)
        case (.interrupted, nil):
            return .failure("interrupted before the server gave a status", status: ExitStatus.connectionFailure)
        }
    }

    /// A status heard while watching: `2026-11-28T09:14:03Z  SERVING`, or with `--json`
    /// `{"at":"2026-11-28T09:14:03Z","status":"SERVING"}`.
    static func watchLine(_ status: GRPCHealthCheck.ServingStatus, at time: Date, json: Bool) -> String {
        let at = time.formatted(.iso8601)
        return json ? JSONOutput.line(WatchedStatus(at: at, status: "\(status)")) : "\(at)  \(status)"
    }

    /// `--json --watch`'s line for a status heard.
    private struct WatchedStatus: Encodable {
        let at: String
        let status: String
    }

    /// What a failed call means: the server's trust rejected, no connection or no answer in
    /// time, or a status the server answered with; an error other than gRPC's is a connection
    /// failure.
    static func outcome(of error: any Error) -> Outcome {
        guard let error = error as? RPCError else {
            return .failure("\(error)", status: ExitStatus.connectionFailure)
        }
        if let rejection = error.cause as? ServerTrustRejection {
            return .failure("\(rejection)", status: ExitStatus.rejected)
        }
        switch error.code {
        case .unavailable:
            return .failure("cannot reach the server: \(error.message)\(error.cause.map { " (\($0))" } ?? "")", status: ExitStatus.connectionFailure)
        case .deadlineExceeded:
            return .failure("no answer in time: \(error.message)", status: ExitStatus.connectionFailure)
        case .notFound:
            return .failure("the server does not know the service (NOT_FOUND): \(error.message)", status: ExitStatus.rpcFailure)
        case .unimplemented:
            return .failure("the server has no health service (UNIMPLEMENTED): \(error.message)", status: ExitStatus.rpcFailure)
        default:
            return .failure("the call failed \(error.code): \(error.message)", status: ExitStatus.rpcFailure)
        }
    }

    /// Prints `outcome` (JSON with `--json`) and returns its exit status.
    private func report(_ outcome: Outcome, decision: TrustDecision?, to terminal: CommandOutput) -> Int32 {
        if json {
            let status: String?
            let failure: String?
            switch outcome {
            case .answered(let answer): (status, failure) = ("\(answer)", nil)
            case .failure(let message, _): (status, failure) = (nil, message)
            }
            let report = Report(
                server: server, service: service, status: status, error: failure, exitStatus: outcome.exitStatus, trustDecision: decision
            )
            // Watching, every object is a line of its own (JSON Lines), the outcome the last.
            terminal.line(watch ? JSONOutput.line(report) : JSONOutput.encode(report))
        } else {
            switch outcome {
            case .answered(let status):
                // Watching, the status was printed when it was heard.
                if !watch { terminal.line("\(status)") }
            case .failure(let message, _): terminal.error("tsec grpc-health: \(message)")
            }
        }
        return outcome.exitStatus
    }

    /// `--json`'s document.
    private struct Report: Encodable {
        let server: String
        let service: String
        let status: String?
        let error: String?
        let exitStatus: Int32
        let trustDecision: TrustDecision?
    }
}

/// The last decision a check's verifier made, the one reported.
private final class DecisionRecord: Sendable {
    private let state = NIOLockedValueBox<TrustDecision?>(nil)
    var last: TrustDecision? { state.withLockedValue { $0 } }
    var record: @Sendable (TrustDecision) -> Void { { [state] decision in state.withLockedValue { $0 = decision } } }
}
#endif
