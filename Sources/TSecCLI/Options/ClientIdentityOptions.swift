import ArgumentParser
import Foundation
import TransportSecurityNIO

/// `tsec get`'s client identity for mutual TLS, by this tool's names (`--client-identity`, or
/// `--client-cert` with `--client-key`; the passphrase from `--passphrase-env` or
/// `--passphrase-file`) or by curl's (`-E/--cert CERT[:PASSWORD]`, `--cert-type`, `--key`,
/// `--key-type`, `--pass`), so that curl's scripts work unchanged.
struct ClientIdentityOptions: ParsableArguments {
    @Option(help: "A PKCS#12 client identity (.p12/.pfx).")
    var clientIdentity: String?

    @OptionGroup var passphraseOptions: PassphraseOptions

    @Option(help: "A PEM client certificate (chain), with --client-key.")
    var clientCert: String?

    @Option(help: "The PEM private key of --client-cert.")
    var clientKey: String?

    @Option(name: [.customShort("E"), .customLong("cert")], help: ArgumentHelp(
        "curl's -E/--cert: the client certificate, CERT[:PASSWORD] (a ':' in the file name written '\\:'): a PKCS#12 file (--cert-type P12, or a .p12/.pfx name) or a PEM certificate chain whose key is --key or in the same file.",
        valueName: "CERT[:PASSWORD]"
    ))
    var curlCertificate: String?

    @Option(name: .customLong("cert-type"), help: ArgumentHelp("curl's --cert-type: PEM or P12 (DER and ENG are not read).", valueName: "TYPE"))
    var curlCertificateType: String?

    @Option(name: .customLong("key"), help: ArgumentHelp("curl's --key: the PEM private key of a PEM -E/--cert.", valueName: "FILE"))
    var curlKey: String?

    @Option(name: .customLong("key-type"), help: ArgumentHelp("curl's --key-type: PEM (DER and ENG are not read).", valueName: "TYPE"))
    var curlKeyType: String?

    @Option(name: .customLong("pass"), help: ArgumentHelp(
        "curl's --pass: the passphrase of -E/--cert or of its key. Anyone who can list processes sees it, as with curl; --passphrase-env and --passphrase-file keep it out of sight.",
        valueName: "PHRASE"
    ))
    var curlPassphrase: String?

    /// Refuses combinations that name two identities, parts without the rest, or two passphrases.
    /// No message quotes `-E`'s argument, which may hold a password.
    func validate() throws {
        let identities = [clientIdentity != nil, clientCert != nil, curlCertificate != nil].filter { $0 }.count
        if identities > 1 {
            throw ValidationError("give one client identity: --client-identity (PKCS#12), --client-cert/--client-key (PEM) or -E/--cert")
        }
        if (clientCert == nil) != (clientKey == nil) {
            throw ValidationError("--client-cert and --client-key go together")
        }
        if curlCertificate == nil, curlKey != nil || curlCertificateType != nil || curlKeyType != nil || curlPassphrase != nil {
            throw ValidationError("--key, --cert-type, --key-type and --pass go with -E/--cert")
        }
        if let type = curlCertificateType, !["PEM", "P12"].contains(type.uppercased()) {
            throw ValidationError("--cert-type \(type): PEM or P12 are read (convert a DER certificate to PEM with tsec convert)")
        }
        if let type = curlKeyType, type.uppercased() != "PEM" {
            throw ValidationError("--key-type \(type): PEM keys are read")
        }
        let certificate = curlCertificate.map(CurlCertificateArgument.init)
        if certificate?.isPKCS12(type: curlCertificateType) == true, curlKey != nil {
            throw ValidationError("--key goes with a PEM -E/--cert: a PKCS#12 file holds its own key")
        }
        let passphrases = [passphraseOptions.passphraseEnv != nil, passphraseOptions.passphraseFile != nil, curlPassphrase != nil, certificate?.password != nil].filter { $0 }.count
        if passphrases > 1 {
            throw ValidationError("give the passphrase once: -E CERT:PASSWORD, --pass, --passphrase-env or --passphrase-file")
        }
    }

    /// The identity, or `nil` when none is given.
    func load() throws -> ClientIdentity? {
        if let clientIdentity {
            return try PassphraseOptions.openPKCS12(clientIdentity, passphrase: try passphrase(), remedy: "--passphrase-env VAR or --passphrase-file FILE") {
                try ClientIdentity(pkcs12File: clientIdentity, passphrase: $0)
            }
        }
        if let clientCert, let clientKey {
            return try ClientIdentity(certificateFile: clientCert, privateKeyFile: clientKey, passphrase: try passphrase())
        }
        guard let curlCertificate else { return nil }
        let certificate = CurlCertificateArgument(curlCertificate)
        if certificate.isPKCS12(type: curlCertificateType) {
            return try PassphraseOptions.openPKCS12(certificate.file, passphrase: try passphrase(), remedy: "-E CERT:PASSWORD, --pass, --passphrase-env VAR or --passphrase-file FILE") {
                try ClientIdentity(pkcs12File: certificate.file, passphrase: $0)
            }
        }
        return try ClientIdentity(certificateFile: certificate.file, privateKeyFile: curlKey ?? certificate.file, passphrase: try passphrase())
    }

    /// The passphrase from wherever it was given; `nil` when it was not.
    private func passphrase() throws -> String? {
        if let password = curlCertificate.flatMap({ CurlCertificateArgument($0).password }) { return password }
        if let curlPassphrase { return curlPassphrase }
        return try passphraseOptions.read()
    }
}

/// `--passphrase-env VAR` or `--passphrase-file FILE`: a passphrase given by the name of an
/// environment variable or of a file (its first line), so that it shows in no process list.
struct PassphraseOptions: ParsableArguments {
    @Option(help: "The environment variable holding the passphrase of a PKCS#12 file or of an encrypted key.")
    var passphraseEnv: String?

    @Option(help: "A file whose first line is the passphrase of a PKCS#12 file or of an encrypted key.")
    var passphraseFile: String?

    /// Whether either was given.
    var isGiven: Bool { passphraseEnv != nil || passphraseFile != nil }

    /// The PKCS#12 file at `path` opened by `open` with `passphrase`, or, when none was given,
    /// with the empty one (as curl's `-E` does; many exports have none); a file the empty one
    /// does not open is refused asking for its passphrase by `remedy`.
    static func openPKCS12(_ path: String, passphrase: String?, remedy: String, _ open: (String) throws -> ClientIdentity) throws -> ClientIdentity {
        do {
            return try open(passphrase ?? "")
        } catch let error as ClientIdentityError where error.reason == .wrongPassphrase && passphrase == nil {
            throw ValidationError("\(path) is a PKCS#12 file protected by a passphrase: give it with \(remedy)")
        }
    }

    /// The passphrase from wherever it was given; `nil` with neither.
    func read() throws -> String? {
        try SecretArgument.read(environment: passphraseEnv, file: passphraseFile, as: "the passphrase file")
    }
}

/// curl's `-E CERT[:PASSWORD]`: the file name up to the first ':' that is not written `\:`
/// (`\\` is a backslash), and the password after it.
struct CurlCertificateArgument: Equatable {
    /// The certificate file.
    let file: String
    /// The password, when one follows the file name.
    let password: String?

    init(_ argument: String) {
        var file = ""
        var characters = argument[...]
        while let character = characters.popFirst() {
            if character == "\\", let next = characters.first, next == ":" || next == "\\" {
                file.append(next)
                characters = characters.dropFirst()
            } else if character == ":" {
                self.file = file
                self.password = String(characters)
                return
            } else {
                file.append(character)
            }
        }
        self.file = file
        self.password = nil
    }

    /// Whether the file is PKCS#12: as `--cert-type` says, else by its `.p12` or `.pfx` name.
    func isPKCS12(type: String?) -> Bool {
        if let type { return type.uppercased() == "P12" }
        let name = file.lowercased()
        return name.hasSuffix(".p12") || name.hasSuffix(".pfx")
    }
}
