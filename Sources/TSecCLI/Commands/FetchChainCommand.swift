import ArgumentParser
import Foundation
import TransportSecurity
import TransportSecurityNIO

/// `tsec fetch-chain HOST:PORT -o FILE [--der]`: save the chain a server presents, unjudged.
public struct FetchChainCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "fetch-chain",
        abstract: "Save the certificate chain a TLS server presents, without judging it.",
        discussion: "Exit status: 0 saved, 2 usage or unwritable output, 3 connection or TLS failure."
    )

    @Argument(help: "The server, HOST:PORT ([IPv6]:PORT for IPv6) or an https:// URL.")
    var server: String

    @Option(name: [.customShort("o"), .long], help: "Where to write the chain.")
    var output: String

    @Flag(help: "Write the leaf as DER (DER holds one certificate) instead of the whole chain as PEM.")
    var der = false

    @Option(help: "The name sent as SNI instead of HOST (openssl's -servername): the chain the server presents for that name.")
    var servername: String?

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Checks that the server is HOST:PORT (or an https:// URL) and the SNI name, if any, is a
    /// host name.
    public func validate() throws {
        _ = try ServerArgument(server)
        try Self.validate(servername: servername)
    }

    /// Refuses an SNI name that is empty, an address (SNI carries host names only) or no host name.
    static func validate(servername: String?) throws {
        guard let servername else { return }
        if servername.isEmpty || ServerHost(servername).isIPAddress || servername.contains(where: { $0.isWhitespace }) {
            throw ValidationError("--servername '\(servername)' is not a host name (SNI carries names, not addresses)")
        }
        if let problem = ServerHost(servername).nameProblem {
            throw ValidationError("--servername \(problem)")
        }
    }

    /// Saves the chain the server presents without judging it; returns 0, 2 for bad usage or an
    /// unwritable output, 3 for a connection or TLS failure.
    public func execute(output terminal: CommandOutput) async -> Int32 {
        guard let target = try? ServerArgument(server) else { return ExitStatus.usageOrInput }
        let chain: [DERCertificate]
        do {
            chain = try await PeerChainFetcher.fetch(host: target.host, port: target.port, serverName: servername)
        } catch {
            terminal.error("tsec fetch-chain: \(error)")
            return ExitStatus.connectionFailure
        }
        let bytes: Data
        if der {
            bytes = Data(chain[0].derBytes)
            if chain.count > 1 {
                terminal.error("tsec fetch-chain: wrote the leaf only; \(chain.count - 1) more certificate(s) need PEM (drop --der)")
            }
        } else {
            bytes = Data((chain.map(\.pemString).joined(separator: "\n") + "\n").utf8)
        }
        do {
            try bytes.write(to: URL(fileURLWithPath: output))
        } catch {
            terminal.error("tsec fetch-chain: cannot write \(output): \(CertificateLoader.describe(error))")
            return ExitStatus.usageOrInput
        }
        for certificate in chain { terminal.line("\(certificate.spkiPin)  \(certificate.subjectSummary)") }
        return ExitStatus.success
    }
}
