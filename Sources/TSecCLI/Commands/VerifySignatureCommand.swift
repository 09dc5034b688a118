import ArgumentParser
import Foundation
import HTTPMessageSignatures
import SecureSession

/// `tsec verify-signature MESSAGE --key FILE`: checks the HTTP message signature (RFC 9421) of
/// an HTTP/1.1 message saved as text (a webhook a partner sent, a response captured with
/// `tsec get -i`), and shows the signature base it was checked over: what to compare with the
/// signer's when a signature does not verify.
public struct VerifySignatureCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "verify-signature",
        abstract: "Verify the HTTP message signature (RFC 9421) of an HTTP/1.1 message saved as text.",
        discussion: """
            MESSAGE holds a request (request line, fields with Host, an empty line, the body) or a \
            response (status line, fields, the body); '-' reads standard input. Prints \
            'verified: …' or 'rejected: …' and the signature base; exits 0 when verified, 1 when \
            rejected, 2 for bad usage or unreadable input.
            """
    )

    /// The saved message.
    @Argument(help: "The HTTP/1.1 message saved as text, or '-' for standard input.")
    public var message: String

    @Option(help: ArgumentHelp("The signer's key: a PEM public key or certificate, a JWK or a JWK set.", valueName: "FILE"))
    var key: String

    @Option(name: .customLong("key-id"), help: ArgumentHelp("The keyid of a PEM --key (a JWK names itself).", valueName: "KEYID"))
    var keyID: String?

    @Option(name: .customLong("alg"), help: ArgumentHelp("For an RSA key without alg: rsa-pss-sha512 (the default) or rsa-v1_5-sha256.", valueName: "ALG"))
    var algorithm: String?

    @Option(help: ArgumentHelp("For a response whose signature covers its request (';req'): the request, saved as text.", valueName: "FILE"))
    var request: String?

    @Option(help: ArgumentHelp("A component the signature must cover. Repeatable.", valueName: "COMPONENT"))
    var require: [String] = []

    @Option(help: ArgumentHelp("The signature to verify, by label (default: the first with a known key).", valueName: "LABEL"))
    var label: String?

    @Option(help: ArgumentHelp("The tag the signature must carry.", valueName: "TAG"))
    var tag: String?

    @Option(name: .customLong("max-age"), help: ArgumentHelp("How old the signature may be, in seconds (default 300; 0: no limit).", valueName: "SECONDS"))
    var maximumAge: Int = 300

    @Option(help: ArgumentHelp("The scheme of a request's URL: https (the default) or http.", valueName: "SCHEME"))
    var scheme: String = "https"

    @OptionGroup var time: EvaluationTimeOption

    @Flag(help: "Print the outcome as JSON.")
    var json = false

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Refuses a scheme other than http(s), a negative age, an algorithm that is not RSA's and a
    /// component that is no component identifier.
    public func validate() throws {
        guard ["https", "http"].contains(scheme) else { throw ValidationError("--scheme takes https or http, not '\(scheme)'") }
        guard maximumAge >= 0 else { throw ValidationError("--max-age must be 0 or more seconds") }
        _ = try SignatureArguments.rsaAlgorithm(algorithm, option: "--alg")
        _ = try SignatureArguments.components(require, option: "--require")
    }

    /// Verifies; returns 0 when verified, 1 when rejected, 2 for unreadable input.
    public func execute(output: CommandOutput) async -> Int32 {
        let verifier: HTTPMessageSignatureVerifier
        let signed: HTTPSignatureMessage
        do {
            let now = time.date ?? Date()
            verifier = HTTPMessageSignatureVerifier(
                keys: try loadKeys(),
                requiredComponents: try SignatureArguments.components(require, option: "--require"),
                label: label,
                tag: tag,
                maximumAge: maximumAge == 0 ? nil : .seconds(maximumAge),
                clock: { now }
            )
            let answered = try request.map { try CapturedHTTPMessage.read(try readInput($0, as: "the request"), scheme: scheme) }
            signed = try CapturedHTTPMessage.read(try readInput(message, as: "the message"), scheme: scheme, answering: answered)
        } catch {
            output.error("tsec verify-signature: \(error)")
            return ExitStatus.usageOrInput
        }
        let report: SignatureReport
        do {
            report = SignatureReport(verified: try verifier.verify(signed))
        } catch {
            report = SignatureReport(refusal: error)
        }
        if json {
            output.line(JSONOutput.encode(report))
        } else {
            output.line(report.summary)
            if let base = report.base { output.line(base) }
        }
        return report.verified ? ExitStatus.success : ExitStatus.rejected
    }

    private func readInput(_ path: String, as what: String) throws -> Data {
        path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try ArgumentFile.read(path, as: what)
    }

    /// The keys of `--key`: a JWK set, a JWK, or a PEM key or certificate under `--key-id`.
    private func loadKeys() throws -> [HTTPSignatureVerificationKey] {
        try SignatureArguments.verificationKeys(file: key, keyID: keyID, algorithm: algorithm, algorithmOption: "--alg", keyIDOption: "--key-id")
    }
}

/// What `tsec verify-signature` found, for people and as JSON.
struct SignatureReport: Encodable {
    let verified: Bool
    var label: String?
    var keyID: String?
    var algorithm: String?
    var components: [String]?
    var created: Date?
    var expires: Date?
    var bodyVerified: Bool?
    var base: String?
    var reason: String?

    init(verified signature: VerifiedHTTPSignature) {
        verified = true
        label = signature.label
        keyID = signature.keyID
        algorithm = signature.algorithm.rawValue
        components = signature.parameters.components.map(\.description)
        created = signature.parameters.created
        expires = signature.parameters.expires
        bodyVerified = signature.bodyVerified
        base = signature.base
    }

    init(refusal: HTTPSignatureError) {
        verified = false
        reason = refusal.description
        if case .invalidSignature(let label, let keyID, let base) = refusal {
            (self.label, self.keyID, self.base) = (label, keyID, base)
        }
    }

    /// `verified: sig1 by client (ed25519), covering …; body checked` or `rejected: reason`.
    var summary: String {
        guard verified, let label, let keyID, let algorithm else { return "rejected: \(reason ?? "")" }
        let covered = (components ?? []).isEmpty ? "nothing" : (components ?? []).joined(separator: " ")
        return "verified: \(label) by \(keyID) (\(algorithm)), covering \(covered); body \(bodyVerified == true ? "checked against Content-Digest" : "not covered")"
    }
}
