import ArgumentParser
import Foundation
import TransportSecurity

/// `tsec pins keygen|sign|verify|install`: the publisher's side of signed pin updates.
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

/// Reading the files of `tsec pins`, with errors that name them.
enum PinsFiles {
    static func bytes(_ path: String) throws(PinUpdateError) -> [UInt8] {
        do {
            return Array(try InputFile.read(path))
        } catch {
            throw PinUpdateError(.fileError("cannot read the file: \(error)"), source: path)
        }
    }

    static func text(_ path: String) throws(PinUpdateError) -> String {
        String(decoding: try bytes(path), as: UTF8.self)
    }
}
