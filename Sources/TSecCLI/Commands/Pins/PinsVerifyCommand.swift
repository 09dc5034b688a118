import ArgumentParser
import Foundation
import TransportSecurity

/// `tsec pins verify --public-key NAME.pub DOC`: checks `DOC.sig`.
public struct PinsVerifyCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify DOC.sig over DOC with a public key.",
        discussion: "Exit status: 0 valid (signature, document, not expired), 1 not valid (with the reason), 2 unreadable input."
    )

    @Option(help: "The public key (NAME.pub).")
    var publicKey: String

    @Argument(help: "The document (JSON); its signature is read from DOC.sig.")
    var document: String

    @OptionGroup var time: EvaluationTimeOption

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Runs the command.
    public func execute(output: CommandOutput) async -> Int32 {
        let key: PinUpdatePublicKey
        let bytes: [UInt8]
        let signature: String
        do {
            key = try PinUpdatePublicKey(pemEncoded: try PinsFiles.text(publicKey), source: publicKey)
            bytes = try PinsFiles.bytes(document)
            signature = try PinsFiles.text(document + ".sig")
        } catch {
            output.error("tsec pins verify: \(error)")
            return ExitStatus.usageOrInput
        }
        do {
            try key.verify(signatureText: signature, for: bytes)
            let parsed = try PinUpdateDocument(bytes: bytes)
            let now = time.date ?? Date()
            guard parsed.expiresAt > now else { throw PinUpdateError(.expired(parsed.expiresAt.formatted(.iso8601))) }
            output.line("valid: version \(parsed.version), issued \(parsed.issuedAt.formatted(.iso8601)), expires \(parsed.expiresAt.formatted(.iso8601))")
            for set in parsed.pinSets {
                output.line("  \(set.key)\(set.includesSubdomains ? " (and subdomains)" : ""): \(set.pins.map(\.description).joined(separator: " "))")
            }
            return ExitStatus.success
        } catch {
            output.error("tsec pins verify: not valid: \(error)")
            return ExitStatus.rejected
        }
    }
}
