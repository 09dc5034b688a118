import ArgumentParser
import Foundation
import TransportSecurity

/// `tsec pins keygen --out NAME [--algorithm ed25519|p256]`: writes `NAME.key` (mode 0600) and `NAME.pub`.
public struct PinsKeygenCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make a signing key: NAME.key (private, mode 0600) and NAME.pub (built into the application)."
    )

    @Option(help: "The files' name without extension.")
    var out: String

    @Option(help: "ed25519 or p256.")
    var algorithm: String = PinUpdateKeyAlgorithm.ed25519.rawValue

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Runs the command.
    public func execute(output: CommandOutput) async -> Int32 {
        guard let algorithm = PinUpdateKeyAlgorithm(rawValue: algorithm.lowercased()) else {
            output.error("tsec pins keygen: --algorithm must be ed25519 or p256, not \(self.algorithm)")
            return ExitStatus.usageOrInput
        }
        let key = PinUpdateSigningKey(generating: algorithm)
        let privatePath = out + ".key"
        let publicPath = out + ".pub"
        do {
            // Created with mode 0600 from the start: the key is never readable by others, not even briefly.
            guard FileManager.default.createFile(atPath: privatePath, contents: Data(try key.pemEncoded.utf8), attributes: [.posixPermissions: 0o600]) else {
                output.error("tsec pins keygen: cannot write \(privatePath)")
                return ExitStatus.usageOrInput
            }
            try Data(try key.publicKey.pemEncoded.utf8).write(to: URL(fileURLWithPath: publicPath))
        } catch {
            output.error("tsec pins keygen: \(error)")
            return ExitStatus.usageOrInput
        }
        output.line("wrote \(privatePath) (private, keep it offline) and \(publicPath) (\(algorithm.rawValue))")
        return ExitStatus.success
    }
}
