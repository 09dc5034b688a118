import ArgumentParser
import Foundation
import TransportSecurity
import TransportSecurityNIO

/// `tsec evaluate`: a security-policy decision (or, with `--anchors`, a raw server-trust
/// evaluation) for a chain read from a file, or for a live server's whole handshake.
public struct EvaluateCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Decide whether a certificate chain, or a live server, is trusted under a security policy.",
        discussion: """
            Exit status: 0 trusted, 1 rejected, 2 usage or unreadable input, 3 when the server \
            cannot be reached or presents no certificate.

            The chain is read from --chain FILE, or a server is given as HOST:PORT or an https:// \
            URL: the handshake is then completed under the policy, and the server is trusted only \
            if the chain is trusted and the server proves it holds the leaf's key (a genuine \
            chain replayed by someone else is rejected). The server's host is the --host checked \
            and sent as SNI, unless --host is given.

            --pin-sha256 adds SPKI pins, as tsec get's: alone they decide, with the chain \
            validated to the system roots; with --mode, the policy and the pins must agree.

            With --anchors, the chain is evaluated against those anchors alone (or, with \
            --no-anchors-only, together with the system store) and no pinning policy applies.
            """
    )

    @Argument(help: "A server to judge by a whole handshake: HOST:PORT or an https:// URL (instead of --chain).")
    var server: String?

    @Option(help: "The presented chain: a PEM bundle (leaf first) or a DER certificate.")
    var chain: String?

    @Option(help: "The host connected to: a DNS name or an IP literal (for a server: the name checked and sent as SNI).")
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
        switch (server, chain) {
        case (nil, nil): throw ValidationError("give the chain: --chain FILE, or a server as HOST:PORT or an https:// URL")
        case (.some, .some): throw ValidationError("give either --chain FILE or a server, not both")
        case (let server?, nil): _ = try ServerArgument(server)
        case (nil, .some): break
        }
        for pin in spkiPins {
            do { _ = try SPKIPin(pin) } catch { throw ValidationError("--pin-sha256 '\(pin)': \(error)") }
        }
        if !spkiPins.isEmpty, anchors != nil {
            throw ValidationError("--anchors is a raw server-trust evaluation; it cannot be combined with --pin-sha256")
        }
        if !spkiPins.isEmpty, host == nil, server == nil, !policy.noDomainValidation {
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

    /// Evaluates the chain (or the server's handshake) as the options say and prints the
    /// decision; returns 0 when trusted, 1 when rejected, 2 for bad usage or unreadable input, 3
    /// when the server cannot be reached.
    public func execute(output: CommandOutput) async -> Int32 {
        // validate() has parsed the server argument already.
        let target = server.flatMap { try? ServerArgument($0) }
        let evaluator: any ServerTrustEvaluating
        let systemStore: TrustStore?
        do {
            evaluator = try makeEvaluator(checkedHost: host ?? target?.host)
            systemStore = try policy.makeSystemStore()
        } catch {
            output.error("tsec evaluate: \(error)")
            return ExitStatus.usageOrInput
        }
        let decision: TrustDecision
        if let target {
            let host = self.host ?? target.host
            let verifier = PeerTrustVerifier(
                evaluator: evaluator, host: host, systemStore: systemStore ?? (try? TrustStore.system),
                evaluationTime: policy.evaluationTime, cache: nil
            )
            do {
                decision = try await HandshakeJudgement.judge(host: target.host, port: target.port, verifier: verifier).outcome
            } catch {
                output.error("tsec evaluate: \(error)")
                return ExitStatus.connectionFailure
            }
            report(decision, output: output)
        } else if let chain {
            let trust: ServerTrust
            do {
                trust = ServerTrust(
                    chain: try CertificateLoader.certificates(atPath: chain),
                    policy: .basicX509,
                    systemStore: systemStore,
                    evaluationTime: policy.evaluationTime
                )
            } catch {
                output.error("tsec evaluate: \(error)")
                return ExitStatus.usageOrInput
            }
            // A policy checks no name when no --host is given; the pins' evaluator needs one (or
            // --no-domain-validation), as validate() requires.
            if let securityPolicy = evaluator as? SecurityPolicy {
                decision = await securityPolicy.evaluate(trust, forDomain: host)
            } else {
                decision = await evaluator.evaluate(trust, forHost: host ?? "")
            }
            report(decision, output: output)
            if !decision.isTrusted, let note = ChainOrderHint.note(for: trust.chain, file: chain) { output.error(note) }
        } else {
            return ExitStatus.usageOrInput
        }
        return decision.isTrusted ? ExitStatus.success : ExitStatus.rejected
    }

    /// What decides: the raw anchors evaluation, the SPKI pins (with the policy when a mode is
    /// given), or the policy alone; `checkedHost` is the name the anchors evaluation checks.
    private func makeEvaluator(checkedHost: String?) throws -> any ServerTrustEvaluating {
        if let anchors {
            return AnchorsTrustEvaluator(
                anchors: try CertificateLoader.certificates(atPath: anchors),
                anchorsOnly: anchorsOnly,
                validation: policy.noDomainValidation ? .basicX509 : .ssl(checkedHost)
            )
        }
        if spkiPins.isEmpty { return try policy.makePolicy() }
        return try policy.makeEvaluator(spkiPins: spkiPins.map(SPKIPin.init))
    }

    private func report(_ decision: TrustDecision, output: CommandOutput) {
        if json {
            output.line(JSONOutput.encode(decision))
        } else if decision.isTrusted {
            output.line("trusted")
        } else {
            output.line("rejected: \(decision.reason) [\(decision.decidedBy)]")
            if let mismatch = decision.pinMismatch { output.line(mismatch.description) }
        }
    }
}
