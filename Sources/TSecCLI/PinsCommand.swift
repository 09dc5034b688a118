import ArgumentParser
import Foundation
import TransportSecurity

/// `tsec pins keygen|sign|verify|install`: the publisher's side of signed pin updates (SPEC §7).
public struct PinsCommand: ParsableCommand {
    /// The command group.
    public static let configuration = CommandConfiguration(
        commandName: "pins",
        abstract: "Make keys for, sign, verify and install signed pin-update documents.",
        subcommands: [PinsKeygenCommand.self, PinsSignCommand.self, PinsVerifyCommand.self, PinsInstallCommand.self]
    )

    /// Creates the command (for ArgumentParser).
    public init() {}
}

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

/// Reading the files of `tsec pins`, with errors that name them.
enum PinsFiles {
    static func bytes(_ path: String) throws(PinUpdateError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PinUpdateError(.fileError("cannot read the file"), source: path)
        }
        return Array(data)
    }

    static func text(_ path: String) throws(PinUpdateError) -> String {
        String(decoding: try bytes(path), as: UTF8.self)
    }
}
