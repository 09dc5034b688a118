import ArgumentParser
import Foundation
import TransportSecurity

/// `tsec pins keygen --out NAME [--algorithm ed25519|p256] [--force]`: writes `NAME.key` (mode 0600
/// from its creation) and `NAME.pub`, never over existing files unless `--force` is given.
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

    @Flag(help: "Replace NAME.key and NAME.pub if they exist (the old key is lost).")
    var force = false

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Runs the command.
    public func execute(output: CommandOutput) async -> Int32 {
        guard let algorithm = PinUpdateKeyAlgorithm(rawValue: algorithm.lowercased()) else {
            output.error("tsec pins keygen: --algorithm must be ed25519 or p256, not \(self.algorithm)")
            return ExitStatus.usageOrInput
        }
        let privatePath = out + ".key"
        let publicPath = out + ".pub"
        let existing = [privatePath, publicPath].filter { Self.exists($0) }
        if !existing.isEmpty {
            guard force else {
                output.error("tsec pins keygen: \(existing.joined(separator: " and ")) already exist\(existing.count == 1 ? "s" : ""); a signing key is never overwritten (--force replaces it, and the old key is lost)")
                return ExitStatus.usageOrInput
            }
            for path in existing { unlink(path) }
        }
        let key = PinUpdateSigningKey(generating: algorithm)
        do {
            try OwnerOnlyFile.create(privatePath, contents: Data(try key.pemEncoded.utf8))
            do {
                try Data(try key.publicKey.pemEncoded.utf8).write(to: URL(fileURLWithPath: publicPath), options: .withoutOverwriting)
            } catch {
                unlink(privatePath)
                output.error("tsec pins keygen: cannot write \(publicPath): \(CertificateLoader.describe(error))")
                return ExitStatus.usageOrInput
            }
        } catch {
            output.error("tsec pins keygen: \(error)")
            return ExitStatus.usageOrInput
        }
        output.line("wrote \(privatePath) (private, keep it offline) and \(publicPath) (\(algorithm.rawValue))")
        return ExitStatus.success
    }

    /// Whether anything, even a dangling symbolic link, is at `path`.
    private static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }
}
