import ArgumentParser
import Foundation
import TransportSecurity
import TransportSecurityNIO

/// `tsec inspect FILE|HOST:PORT`: every certificate of a file or of a live server's chain.
public struct InspectCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show every certificate of a file or of a server's chain: names, validity, key, usages, pin, fingerprint.",
        discussion: """
            A path that exists is read as a certificate file (DER, PEM or a PEM bundle); otherwise \
            HOST:PORT ([IPv6]:PORT, or an https:// URL) is connected to and its chain shown, without judging it. Exit \
            status: 0 shown, 2 unreadable or malformed input, 3 connection or TLS failure.
            """
    )

    @Argument(help: "A certificate file, or a server as HOST:PORT or an https:// URL.")
    var source: String

    @Flag(help: "Print the certificates as JSON.")
    var json = false

    @Option(help: "For a server: the name sent as SNI instead of HOST (openssl's -servername).")
    var servername: String?

    @OptionGroup var time: EvaluationTimeOption

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Refuses an SNI name that is not a host name.
    public func validate() throws {
        try FetchChainCommand.validate(servername: servername)
    }

    struct Report: Encodable {
        let source: String
        let certificates: [CertificateDetails]
    }

    /// Prints the details of a certificate file or of the chain a server presents; returns 0, 2 for
    /// unreadable or malformed input, 3 for a connection or TLS failure.
    public func execute(output: CommandOutput) async -> Int32 {
        let certificates: [DERCertificate]
        if FileManager.default.fileExists(atPath: source) {
            do {
                certificates = try CertificateLoader.certificates(atPath: source)
            } catch {
                output.error("tsec inspect: \(error)")
                return ExitStatus.usageOrInput
            }
        } else {
            guard source.contains("://") || !source.contains("/") else {
                output.error("tsec inspect: \(source): no such file")
                return ExitStatus.usageOrInput
            }
            let target: ServerArgument
            do {
                target = try ServerArgument(source)
            } catch {
                output.error("tsec inspect: no file is named '\(source)', and as a server: \(error.message)")
                return ExitStatus.usageOrInput
            }
            do {
                certificates = try await PeerChainFetcher.fetch(host: target.host, port: target.port, serverName: servername)
            } catch {
                output.error("tsec inspect: \(error)")
                return ExitStatus.connectionFailure
            }
        }
        let now = time.date ?? Date()
        let details = certificates.map { CertificateDetails($0, at: now) }
        if json {
            output.line(JSONOutput.encode(Report(source: source, certificates: details)))
        } else {
            for (index, certificate) in details.enumerated() {
                if index > 0 { output.line("") }
                output.line("Certificate \(index + 1) of \(details.count) (\(source))")
                for (label, value) in Self.fields(of: certificate) {
                    output.line("  " + (label + ":").padding(toLength: 16, withPad: " ", startingAt: 0) + value)
                }
            }
        }
        return ExitStatus.success
    }

    /// The labelled lines of one certificate.
    static func fields(of certificate: CertificateDetails) -> [(String, String)] {
        var fields: [(String, String)] = [
            ("Subject", certificate.subject),
            ("Issuer", certificate.issuer + (certificate.isSelfIssued ? " (self-issued)" : "")),
            ("Serial", certificate.serialNumber),
            ("Version", certificate.version),
            ("Not before", certificate.notBefore),
            ("Not after", certificate.notAfter),
            ("Validity", certificate.validity),
            ("SANs", certificate.subjectAlternativeNames.isEmpty ? "(none)" : certificate.subjectAlternativeNames.joined(separator: ", ")),
            ("Key", "\(certificate.keyType), \(certificate.keyBits) bits"),
            ("Signature", certificate.signatureAlgorithm),
            ("Key usage", certificate.keyUsage.map { $0.joined(separator: ", ") } ?? "(no extension)"),
            ("Extended usage", certificate.extendedKeyUsage.map { $0.joined(separator: ", ") } ?? "(no extension)"),
            ("CA", caText(certificate)),
            ("SPKI pin", certificate.spkiPin),
            ("SHA-256", certificate.sha256Fingerprint),
        ]
        for url in certificate.issuerCertificateURLs { fields.append(("CA issuers", url)) }
        for url in certificate.ocspResponderURLs { fields.append(("OCSP", url)) }
        for problem in certificate.malformedExtensions { fields.append(("Malformed", problem)) }
        return fields
    }

    private static func caText(_ certificate: CertificateDetails) -> String {
        switch certificate.isCertificateAuthority {
        case true?: return "yes" + (certificate.pathLengthConstraint.map { ", path length \($0)" } ?? ", no path length limit")
        case false?: return "no"
        case nil: return "no (no basic constraints)"
        }
    }
}
