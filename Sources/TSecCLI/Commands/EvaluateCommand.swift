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

            --pin-sha256 adds SPKI pins, as tsec get's: alone they decide, with the chain \
            validated to the system roots; with --mode, the policy and the pins must agree.

            With --anchors, the chain is evaluated against those anchors alone (or, with \
            --no-anchors-only, together with the system store) and no pinning policy applies.
            """
    )

    @Option(help: "The presented chain: a PEM bundle (leaf first) or a DER certificate.")
    var chain: String

    @Option(help: "The host connected to: a DNS name or an IP literal.")
    var host: String?

    @OptionGroup var policy: PolicyOptions

    @Option(name: .customLong("pin-sha256"), help: "An SPKI pin (sha256/<base64>) some certificate of the chain must carry. Repeatable.")
    var spkiPins: [String] = []

    @Option(help: "Evaluate the chain against these anchors (raw server trust, no policy).")
    var anchors: String?

    @Flag(inversion: .prefixedNo, help: "With --anchors: trust only them (default) or them and the system store.")
    var anchorsOnly = true

    @Flag(help: "Print the whole decision as JSON.")
    var json = false

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Refuses option combinations that make no sense, before anything is read.
    public func validate() throws {
        for pin in spkiPins {
            do { _ = try SPKIPin(pin) } catch { throw ValidationError("--pin-sha256 '\(pin)': \(error)") }
        }
        if !spkiPins.isEmpty, anchors != nil {
            throw ValidationError("--anchors is a raw server-trust evaluation; it cannot be combined with --pin-sha256")
        }
        if !spkiPins.isEmpty, host == nil, !policy.noDomainValidation {
            throw ValidationError("--pin-sha256 checks the host name too: give --host NAME (or --no-domain-validation)")
        }
        if let host, host.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--host is empty; leave it out to check no host name")
        }
        // A host no connection could be made to ("a b", "*.example.com", a NUL) would only ever
        // be rejected, for a reason that hides the typing mistake.
        if let host, let problem = ServerHost(host).nameProblem {
            throw ValidationError("--host \(problem)")
        }
        if anchors != nil, policy.mode != .none || !policy.pins.isEmpty || policy.allowInvalidCertificates {
            throw ValidationError("--anchors is a raw server-trust evaluation; it cannot be combined with --mode, --pin or --allow-invalid-certificates")
        }
    }

    /// Evaluates the chain as the options say and prints the decision; returns 0 when trusted, 1
    /// when rejected, 2 for bad usage or unreadable input.
    public func execute(output: CommandOutput) async -> Int32 {
        let trust: ServerTrust
        let securityPolicy: SecurityPolicy
        do {
            securityPolicy = try policy.makePolicy()
            trust = ServerTrust(
                chain: try CertificateLoader.certificates(atPath: chain),
                policy: .basicX509,
                anchors: try anchors.map { try CertificateLoader.certificates(atPath: $0) },
                anchorsOnly: anchorsOnly,
                systemStore: try policy.makeSystemStore(),
                evaluationTime: policy.evaluationTime
            )
        } catch {
            output.error("tsec evaluate: \(error)")
            return ExitStatus.usageOrInput
        }

        let decision: TrustDecision
        if anchors != nil {
            let validation: TrustValidationPolicy = policy.noDomainValidation ? .basicX509 : .ssl(host)
            let evaluation = await trust.withPolicy(validation).evaluate()
            decision = TrustDecision(
                isTrusted: evaluation.isTrusted,
                decider: .evaluator("server trust against \(evaluation.anchors)"),
                reason: evaluation.summary,
                checks: [TrustCheck(name: "trust under \(validation)", evaluation: evaluation)]
            )
        } else if spkiPins.isEmpty {
            decision = await securityPolicy.evaluate(trust, forDomain: host)
        } else {
            do {
                let evaluator = try policy.makeEvaluator(spkiPins: spkiPins.map(SPKIPin.init))
                decision = await evaluator.evaluate(trust, forHost: host ?? "")
            } catch {
                output.error("tsec evaluate: \(error)")
                return ExitStatus.usageOrInput
            }
        }

        if json {
            output.line(JSONOutput.encode(decision))
        } else if decision.isTrusted {
            output.line("trusted")
        } else {
            output.line("rejected: \(decision.reason) [\(decision.decidedBy)]")
            if let mismatch = decision.pinMismatch { output.line(mismatch.description) }
        }
        if !decision.isTrusted, let note = ChainOrderHint.note(for: trust.chain, file: chain) { output.error(note) }
        return decision.isTrusted ? ExitStatus.success : ExitStatus.rejected
    }
}
