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
            A path that exists is read as a certificate file (DER, PEM or a PEM bundle), or as a client \
            identity: a PKCS#12 file (its passphrase from --passphrase-env or --passphrase-file; none tries \
            the empty one) or a PEM certificate file with its --key; otherwise HOST:PORT ([IPv6]:PORT, or an \
            https:// URL) is connected to and its chain shown, without judging it. Exit status: 0 shown, 2 \
            unreadable or malformed input (a wrong passphrase, a key that is not the certificate's), 3 \
            connection or TLS failure.
            """
    )

    @Argument(help: "A certificate file, or a server as HOST:PORT or an https:// URL.")
    var source: String

    @Flag(help: "Print the certificates as JSON.")
    var json = false

    @Option(help: "For a server: the name sent as SNI instead of HOST (openssl's -servername).")
    var servername: String?

    @Option(help: "For a PEM certificate file: its private key (PEM), checked against it and shown as an identity.")
    var key: String?

    @OptionGroup var passphrase: PassphraseOptions

    @OptionGroup var time: EvaluationTimeOption

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Refuses an SNI name that is not a host name, and two passphrase sources.
    public func validate() throws {
        try FetchChainCommand.validate(servername: servername)
        if passphrase.passphraseEnv != nil, passphrase.passphraseFile != nil {
            throw ValidationError("give the passphrase once: --passphrase-env or --passphrase-file")
        }
    }

    struct Report: Encodable {
        let source: String
        let certificates: [CertificateDetails]
        /// For an identity: its private key.
        let privateKey: PrivateKeyReport?
    }

    /// The private key of an identity: its kind, and the certificate it belongs to (1-based).
    struct PrivateKeyReport: Encodable {
        let keyType: String
        let keyBits: Int
        let certificate: Int
        let subject: String
    }

    /// Prints the details of a certificate file or of the chain a server presents; returns 0, 2 for
    /// unreadable or malformed input, 3 for a connection or TLS failure.
    public func execute(output: CommandOutput) async -> Int32 {
        let certificates: [DERCertificate]
        var isIdentity = false
        if FileManager.default.fileExists(atPath: source) {
            do {
                if let identity = try loadIdentity() {
                    certificates = try identity.certificateChain.map { try DERCertificate(derBytes: $0.toDERBytes()) }
                    isIdentity = true
                } else {
                    certificates = try CertificateLoader.certificates(atPath: source)
                }
            } catch {
                output.error("tsec inspect: \(error)")
                return ExitStatus.usageOrInput
            }
        } else {
            guard key == nil, !passphrase.isGiven else {
                output.error("tsec inspect: --key, --passphrase-env and --passphrase-file go with a file (\(source): no such file)")
                return ExitStatus.usageOrInput
            }
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
        // An identity's key is the first certificate's (loading checked it).
        let privateKey = isIdentity ? details.first.map {
            PrivateKeyReport(keyType: $0.keyType, keyBits: $0.keyBits, certificate: 1, subject: $0.subject)
        } : nil
        if json {
            output.line(JSONOutput.encode(Report(source: source, certificates: details, privateKey: privateKey)))
        } else {
            for (index, certificate) in details.enumerated() {
                if index > 0 { output.line("") }
                output.line("Certificate \(index + 1) of \(details.count) (\(source))")
                Self.print(Self.fields(of: certificate), to: output)
            }
            if let privateKey {
                output.line("")
                output.line("Private key (\(key ?? source))")
                Self.print([
                    ("Key", "\(privateKey.keyType), \(privateKey.keyBits) bits"),
                    ("Belongs to", "certificate \(privateKey.certificate) (\(privateKey.subject))"),
                ], to: output)
            }
        }
        return ExitStatus.success
    }

    private static func print(_ fields: [(String, String)], to output: CommandOutput) {
        for (label, value) in fields {
            output.line("  " + (label + ":").padding(toLength: 16, withPad: " ", startingAt: 0) + value)
        }
    }

    /// The identity the file is, with its passphrase: a PKCS#12 file, or a PEM certificate file
    /// given with `--key`; `nil` for a certificate file. A PKCS#12 file without a passphrase
    /// given is tried with the empty one, and refused asking for one when that does not open it.
    private func loadIdentity() throws -> ClientIdentity? {
        let passphrase = try passphrase.read()
        if let key {
            return try ClientIdentity(certificateFile: source, privateKeyFile: key, passphrase: passphrase)
        }
        // A folder, or a file that cannot be read, is the certificate loader's to explain.
        guard let bytes = try? Array(InputFile.read(source)), PKCS12Contents.isPKCS12(bytes) else {
            if passphrase != nil {
                throw ValidationError("\(source) is not PKCS#12: a passphrase goes with a PKCS#12 file or an encrypted --key")
            }
            return nil
        }
        return try PassphraseOptions.openPKCS12(source, passphrase: passphrase, remedy: "--passphrase-env VAR or --passphrase-file FILE") {
            try ClientIdentity(pkcs12: bytes, passphrase: $0, source: source)
        }
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
        ]
        if let spiffeID = certificate.spiffeID { fields.append(("SPIFFE ID", spiffeID)) }
        fields += [
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
