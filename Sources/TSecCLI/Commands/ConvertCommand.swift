import ArgumentParser
import Foundation
import TransportSecurity

/// `tsec convert IN -o OUT --to der|pem`.
public struct ConvertCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert certificates between DER and PEM.",
        discussion: "Exit status: 0 converted, 2 usage or unreadable input (DER holds one certificate)."
    )

    /// The output formats.
    public enum Format: String, ExpressibleByArgument, CaseIterable, Sendable {
        /// One DER certificate.
        case der
        /// PEM, one block per certificate.
        case pem
    }

    @Argument(help: "The input: DER, PEM or a PEM bundle.")
    var input: String

    @Option(name: [.customShort("o"), .long], help: "The output file.")
    var output: String

    @Option(help: "The output format.")
    var to: Format

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Writes the certificates of the input in the other encoding; returns 0, or 2 for unreadable
    /// input, an unwritable output or several certificates asked for as DER.
    public func execute(output terminal: CommandOutput) async -> Int32 {
        do {
            let certificates = try CertificateLoader.certificates(atPath: input)
            let bytes: Data
            switch to {
            case .pem:
                bytes = Data((certificates.map(\.pemString).joined(separator: "\n") + "\n").utf8)
            case .der:
                guard certificates.count == 1 else {
                    terminal.error("tsec convert: \(input) holds \(certificates.count) certificates; DER holds one (use --to pem)")
                    return ExitStatus.usageOrInput
                }
                bytes = Data(certificates[0].derBytes)
            }
            do {
                try bytes.write(to: URL(fileURLWithPath: output))
            } catch {
                terminal.error("tsec convert: cannot write \(output): \(CertificateLoader.describe(error))")
                return ExitStatus.usageOrInput
            }
            return ExitStatus.success
        } catch {
            terminal.error("tsec convert: \(error)")
            return ExitStatus.usageOrInput
        }
    }
}
