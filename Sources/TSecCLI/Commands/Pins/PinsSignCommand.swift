import ArgumentParser
import Foundation
import TransportSecurity

/// `tsec pins sign --key NAME.key DOC`: writes `DOC.sig`.
public struct PinsSignCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a pin-update document (checked first) with a private key: writes DOC.sig."
    )

    @Option(help: "The private key (NAME.key).")
    var key: String

    @Argument(help: "The document (JSON).")
    var document: String

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Runs the command.
    public func execute(output: CommandOutput) async -> Int32 {
        do {
            let signingKey = try PinUpdateSigningKey(pemEncoded: try PinsFiles.text(key), source: key)
            let bytes = try PinsFiles.bytes(document)
            let parsed = try PinUpdateDocument(bytes: bytes)
            let signature = try signingKey.sign(bytes)
            try Data(PinUpdateSignature.encode(signature).utf8).write(to: URL(fileURLWithPath: document + ".sig"))
            output.line("wrote \(document).sig: version \(parsed.version), \(parsed.pinSets.count) domain(s), expires \(parsed.expiresAt.formatted(.iso8601))")
            return ExitStatus.success
        } catch {
            output.error("tsec pins sign: \(error)")
            return ExitStatus.usageOrInput
        }
    }
}
