import ArgumentParser
import Foundation
import TransportSecurity
import TransportSecurityNIO

/// `tsec pin FILE|HOST:PORT...`: the SPKI pin of every certificate of the files or of the chains
/// live servers present, or, in a PEM file without certificates, of every public key, private key
/// and certificate request (backup pins).
public struct PinCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Print the SPKI pin of every certificate: sha256/<base64>  <subject>.",
        discussion: """
            A PEM file without certificates gives the pin of each public key, private key and \
            certificate request in it (sha256/<base64>  public key FILE): the backup pin of a key \
            that has no certificate yet. An argument that names no file and reads as HOST:PORT or \
            an https:// URL is a server: the pins of the chain it presents, not judged. Exit \
            status: 0, 2 for an unreadable file, 3 when a server cannot be reached.
            """
    )

    /// The certificate files (DER, PEM or PEM bundles), or servers.
    @Argument(help: "Certificate files (DER, PEM or PEM bundles), PEM keys and certificate requests, or servers as HOST:PORT or https:// URLs.")
    public var files: [String]

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Prints one `sha256/<base64>  <subject>` line per certificate (or key); returns 2 when a file
    /// cannot be read, 3 when a server cannot be reached, 0 otherwise.
    public func execute(output: CommandOutput) async -> Int32 {
        guard !files.isEmpty else {
            output.error("tsec pin: give at least one certificate file or server")
            return ExitStatus.usageOrInput
        }
        var status = ExitStatus.success
        for file in files {
            if !FileManager.default.fileExists(atPath: file), let server = try? ServerArgument(file) {
                do {
                    for certificate in try await PeerChainFetcher.fetch(host: server.host, port: server.port, serverName: nil) {
                        output.line("\(certificate.spkiPin)  \(certificate.subjectSummary)")
                    }
                    // Whoever answered at that address chose this chain, and did not have to
                    // prove it holds the leaf's key: an intercepting proxy's pins would be printed
                    // just the same.
                    output.error("tsec pin: \(file): the chain as presented, not judged: check the pins over a path you trust (tsec get --pin-sha256 judges a whole handshake)")
                } catch {
                    output.error("tsec pin: \(file): \(error)")
                    status = max(status, ExitStatus.connectionFailure)
                }
                continue
            }
            do {
                for certificate in try CertificateLoader.certificates(atPath: file) {
                    output.line("\(certificate.spkiPin)  \(certificate.subjectSummary)")
                }
            } catch let error as CertificateLoadingError where error.reason == .noCertificates {
                do {
                    for key in try KeyPins.pins(inPEM: String(decoding: try InputFile.read(file), as: UTF8.self), source: file) {
                        output.line("\(key.pin)  \(key.kind) \(file)")
                    }
                } catch let keyError as CertificateLoadingError where keyError.reason == .noCertificates {
                    output.error("tsec pin: \(file) contains no certificate, public key, private key or certificate request")
                    status = max(status, ExitStatus.usageOrInput)
                } catch {
                    output.error("tsec pin: \(error)")
                    status = max(status, ExitStatus.usageOrInput)
                }
            } catch {
                output.error("tsec pin: \(error)")
                status = max(status, ExitStatus.usageOrInput)
            }
        }
        return status
    }
}
