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
/// of `tsec get`, with pins and a client certificate.
public struct GRPCHealthCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "grpc-health",
        abstract: "Ask a gRPC server over pinned or mutual TLS whether it serves (grpc.health.v1.Health/Check).",
        discussion: """
            Prints the status the server gave (SERVING, NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN).

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

    @Option(name: .customLong("max-time"), help: "The most seconds the check may take, connection included.")
    var maxTime: Double = 10

    @Flag(help: "Print the outcome as JSON: server, service, status or error, exit status and the trust decision.")
    var json = false

    @Flag(name: [.customShort("v"), .long], help: "Tell on standard error how the server's chain was judged.")
    var verbose = false

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Checks the server argument, the TLS name and the time limit.
    public func validate() throws {
        _ = try ServerArgument(server)
        try FetchChainCommand.validate(servername: servername)
        try TimeLimit.validate(maxTime)
    }

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
        options.timeout = TimeLimit.duration(maxTime)
        options.waitForReady = false
        let client = GRPCClient(transport: transport)
        let connections = Task { try await client.runConnections() }
        let outcome: Outcome
        do {
            outcome = .answered(try await GRPCHealthCheck.status(of: service, through: client, options: options))
        } catch let error as RPCError {
            outcome = Self.outcome(of: error)
        } catch {
            outcome = .failure("\(error)", status: ExitStatus.connectionFailure)
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

    /// What a failed call means: the server's trust rejected, no connection or no answer in
    /// time, or a status the server answered with.
    static func outcome(of error: RPCError) -> Outcome {
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
            terminal.line(JSONOutput.encode(Report(
                server: server, service: service, status: status, error: failure, exitStatus: outcome.exitStatus, trustDecision: decision
            )))
        } else {
            switch outcome {
            case .answered(let status): terminal.line("\(status)")
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
