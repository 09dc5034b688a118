import ArgumentParser
import TransportSecurity

/// `tsec pin FILE...`: the SPKI pin of every certificate of the files.
public struct PinCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Print the SPKI pin of every certificate: sha256/<base64>  <subject>."
    )

    /// The certificate files (DER, PEM or PEM bundles).
    @Argument(help: "Certificate files: DER, PEM or PEM bundles.")
    public var files: [String]

    /// Creates the command (for ArgumentParser).
    public init() {}

    public func execute(output: CommandOutput) async -> Int32 {
        guard !files.isEmpty else {
            output.error("tsec pin: give at least one certificate file")
            return ExitStatus.usageOrInput
        }
        var status = ExitStatus.success
        for file in files {
            do {
                for certificate in try CertificateLoader.certificates(atPath: file) {
                    output.line("\(certificate.spkiPin)  \(certificate.subjectSummary)")
                }
            } catch {
                output.error("tsec pin: \(error)")
                status = ExitStatus.usageOrInput
            }
        }
        return status
    }
}
