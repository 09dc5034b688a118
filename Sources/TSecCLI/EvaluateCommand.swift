import ArgumentParser
import Foundation
import TransportSecurity

/// `tsec evaluate`: a security-policy decision (or, with `--anchors`, a raw server-trust
/// evaluation) for a chain read from a file.
public struct EvaluateCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Decide whether a certificate chain is trusted under a security policy.",
        discussion: """
            Exit status: 0 trusted, 1 rejected, 2 usage or unreadable input.
            With --anchors, the chain is evaluated against those anchors alone (or, with
            --no-anchors-only, together with the system store) and no pinning policy applies.
            """
    )

    /// The pinning modes as written on the command line.
    public enum Mode: String, ExpressibleByArgument, CaseIterable, Sendable {
        /// No pinning.
        case none
        /// Public-key pinning.
        case publicKey = "public-key"
        /// Certificate pinning.
        case certificate

        var pinningMode: SSLPinningMode {
            switch self {
            case .none: return .none
            case .publicKey: return .publicKey
            case .certificate: return .certificate
            }
        }
    }

    @Option(help: "The presented chain: a PEM bundle (leaf first) or a DER certificate.")
    var chain: String

    @Option(help: "The host connected to: a DNS name or an IP literal.")
    var host: String?

    @Option(help: "The pinning mode.")
    var mode: Mode = .none

    @Option(name: .customLong("pin"), help: "A certificate file to pin (a bundle pins each certificate). Repeatable.")
    var pins: [String] = []

    @Flag(help: "Accept chains that do not validate, as far as the pinning mode allows.")
    var allowInvalidCertificates = false

    @Flag(help: "Do not check that the certificate names the host.")
    var noDomainValidation = false

    @Option(help: "A PEM bundle that replaces the system trust store.")
    var systemRoots: String?

    @Option(help: "Evaluate the chain against these anchors (raw server trust, no policy).")
    var anchors: String?

    @Flag(inversion: .prefixedNo, help: "With --anchors: trust only them (default) or them and the system store.")
    var anchorsOnly = true

    @Option(help: "The evaluation time, ISO 8601 (2030-01-01T00:00:00Z). Default: now.")
    var at: String?

    @Flag(help: "Print the whole decision as JSON.")
    var json = false

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Refuses option combinations that make no sense, before anything is read.
    public func validate() throws {
        if anchors != nil, mode != .none || !pins.isEmpty || allowInvalidCertificates {
            throw ValidationError("--anchors is a raw server-trust evaluation; it cannot be combined with --mode, --pin or --allow-invalid-certificates")
        }
        if mode != .none, pins.isEmpty {
            throw ValidationError("--mode \(mode.rawValue) needs at least one --pin certificate")
        }
        if let at, Self.parseDate(at) == nil {
            throw ValidationError("--at '\(at)' is not an ISO 8601 time such as 2030-01-01T00:00:00Z")
        }
    }

    public func execute(output: CommandOutput) async -> Int32 {
        let trust: ServerTrust
        let pinned: [DERCertificate]
        do {
            let presented = try CertificateLoader.certificates(atPath: chain)
            pinned = try pins.flatMap { try CertificateLoader.certificates(atPath: $0) }
            let store = try systemRoots.map { TrustStore(try CertificateLoader.certificates(atPath: $0), origin: $0) }
            trust = ServerTrust(
                chain: presented,
                policy: .basicX509,
                anchors: try anchors.map { try CertificateLoader.certificates(atPath: $0) },
                anchorsOnly: anchorsOnly,
                systemStore: store,
                evaluationTime: at.flatMap(Self.parseDate)
            )
        } catch {
            output.error("tsec evaluate: \(error)")
            return ExitStatus.usageOrInput
        }

        let decision: TrustDecision
        if anchors != nil {
            let validation: TrustValidationPolicy = noDomainValidation ? .basicX509 : .ssl(host)
            let evaluation = await trust.withPolicy(validation).evaluate()
            decision = TrustDecision(
                isTrusted: evaluation.isTrusted,
                decidedBy: "server trust against \(evaluation.anchors)",
                reason: evaluation.summary,
                checks: [TrustCheck(name: "trust under \(validation)", evaluation: evaluation)]
            )
        } else {
            let policy = SecurityPolicy(
                pinningMode: mode.pinningMode,
                pinnedCertificates: pinned,
                allowInvalidCertificates: allowInvalidCertificates,
                validatesDomainName: !noDomainValidation
            )
            decision = await policy.evaluate(trust, forDomain: host)
        }

        if json {
            output.line(JSONOutput.encode(decision))
        } else if decision.isTrusted {
            output.line("trusted")
        } else {
            output.line("rejected: \(decision.reason) [\(decision.decidedBy)]")
            if let mismatch = decision.pinMismatch { output.line(mismatch.description) }
        }
        return decision.isTrusted ? ExitStatus.success : ExitStatus.rejected
    }

    static func parseDate(_ text: String) -> Date? {
        try? Date(text, strategy: .iso8601)
    }
}
