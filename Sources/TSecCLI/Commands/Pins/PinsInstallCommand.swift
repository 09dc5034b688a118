import ArgumentParser
import Foundation
import TransportSecurity

/// `tsec pins install --public-key NAME.pub --store FILE DOC`: what a client does with a fetched
/// document, by hand: verify, refuse rollbacks, store atomically.
public struct PinsInstallCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Accept DOC (with DOC.sig) into a pin store as a client would: verified, newer, not expired, stored atomically.",
        discussion: "Exit status: 0 accepted, 1 refused (with the reason; the store is unchanged), 2 unreadable input."
    )

    @Option(help: "The public key (NAME.pub).")
    var publicKey: String

    @Option(help: "The store file.")
    var store: String

    @Argument(help: "The document (JSON); its signature is read from DOC.sig.")
    var document: String

    @OptionGroup var time: EvaluationTimeOption

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Runs the command.
    public func execute(output: CommandOutput) async -> Int32 {
        let registry: PinSetRegistry
        let bytes: [UInt8]
        let signature: String
        do {
            let key = try PinUpdatePublicKey(pemEncoded: try PinsFiles.text(publicKey), source: publicKey)
            let now = time.date ?? Date()
            registry = PinSetRegistry(publicKey: key, store: PinUpdateStore(path: store), clock: { now })
            bytes = try PinsFiles.bytes(document)
            signature = try PinsFiles.text(document + ".sig")
        } catch {
            output.error("tsec pins install: \(error)")
            return ExitStatus.usageOrInput
        }
        do {
            try registry.loadStored()
        } catch {
            output.error("tsec pins install: the current store is unusable, replacing it: \(error)")
        }
        do {
            let accepted = try registry.offer(document: bytes, signatureText: signature)
            output.line("installed version \(accepted.version) into \(store)")
            return ExitStatus.success
        } catch {
            output.error("tsec pins install: refused: \(error)")
            return ExitStatus.rejected
        }
    }
}
