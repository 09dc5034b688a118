import Foundation
import Logging
import TransportSecurity

/// A client identity kept in files — a PKCS#12 file, or a PEM certificate chain and its private
/// key — and read again when they change, so that a long-running process presents a renewed
/// certificate without restarting (cert-manager or Vault renewing a mounted secret, an operator
/// replacing a bank's certificate before it expires).
///
/// The files are read once when it is made (an error then is thrown). Afterwards ``identity``
/// looks at the files again (their inode, size and times, not their content) when
/// `checkInterval` has passed since it last looked, and reads them only when one of them changed.
/// A change that does not load — a file caught half-written, a certificate replaced before its
/// key, a wrong passphrase — leaves the previous identity in use, is logged and kept in
/// ``lastReloadError``, and is tried again once the files change again; the previous identity
/// never gives way to nothing.
///
/// Give it to `SecureSession` through `SecureSessionConfiguration.clientIdentityFile`, or to a
/// swift-nio-ssl client through
/// `TLSConfiguration.transportSecurityClient(identityProvider: { _ in file.identity })`.
/// The passphrase is kept in memory for the reloads; it never appears in an error or a log line.
public final class ClientIdentityFile: @unchecked Sendable {
    /// The files the identity is read from: the PKCS#12 file (then its passphrase file, when it
    /// has one), or the certificate file then the private-key file.
    public let paths: [String]
    /// How long ``identity`` answers without looking at the files again.
    public let checkInterval: Duration

    private let load: @Sendable () throws -> ClientIdentity
    private let logger: Logger
    private let clock = ContinuousClock()
    private let lock = NSLock()
    private var current: ClientIdentity
    private var versions: [FileVersion?]
    private var checkedAt: ContinuousClock.Instant
    private var reloadError: ClientIdentityError?

    /// Reads a PKCS#12 file, and reads it again when it changes.
    /// - Parameters:
    ///   - path: The PKCS#12 (`.p12`, `.pfx`) file.
    ///   - passphrase: Its passphrase, kept for the reloads.
    ///   - checkInterval: How long the files are not looked at after a look (1 second unless
    ///     given; zero looks at every use).
    ///   - logger: Where reloads (debug) and failed reloads (warning: the previous identity is
    ///     still presented) are told; nothing is logged unless given.
    /// - Throws: ``ClientIdentityError`` when the file does not load now.
    public convenience init(
        pkcs12File path: String,
        passphrase: String,
        checkInterval: Duration = .seconds(1),
        logger: Logger = Logger(label: "TransportSecurityNIO.ClientIdentityFile", factory: SwiftLogNoOpLogHandler.init)
    ) throws {
        try self.init(paths: [path], checkInterval: checkInterval, logger: logger) {
            try ClientIdentity(pkcs12File: path, passphrase: passphrase)
        }
    }

    /// Reads a PKCS#12 file whose passphrase is the first line of another file (a secret volume
    /// holding both, renewed together), and reads them again when either changes.
    /// - Parameters:
    ///   - path: The PKCS#12 (`.p12`, `.pfx`) file.
    ///   - passphraseFile: The file whose first line is the passphrase, read at each reload.
    ///   - checkInterval: How long the files are not looked at after a look (1 second unless
    ///     given; zero looks at every use).
    ///   - logger: Where reloads (debug) and failed reloads (warning: the previous identity is
    ///     still presented) are told; nothing is logged unless given.
    /// - Throws: ``ClientIdentityError`` when the files do not load now.
    public convenience init(
        pkcs12File path: String,
        passphraseFile: String,
        checkInterval: Duration = .seconds(1),
        logger: Logger = Logger(label: "TransportSecurityNIO.ClientIdentityFile", factory: SwiftLogNoOpLogHandler.init)
    ) throws {
        try self.init(paths: [path, passphraseFile], checkInterval: checkInterval, logger: logger) {
            try ClientIdentity(pkcs12File: path, passphrase: Self.passphrase(in: passphraseFile))
        }
    }

    /// Reads a PEM certificate-chain file and a PEM private-key file, and reads them again when
    /// either changes.
    /// - Parameters:
    ///   - certificateFile: The certificate chain, leaf first.
    ///   - privateKeyFile: The leaf's private key.
    ///   - passphrase: The key's passphrase when it is encrypted, kept for the reloads.
    ///   - checkInterval: How long the files are not looked at after a look (1 second unless
    ///     given; zero looks at every use).
    ///   - logger: Where reloads (debug) and failed reloads (warning: the previous identity is
    ///     still presented) are told; nothing is logged unless given.
    /// - Throws: ``ClientIdentityError`` when the files do not load now.
    public convenience init(
        certificateFile: String,
        privateKeyFile: String,
        passphrase: String? = nil,
        checkInterval: Duration = .seconds(1),
        logger: Logger = Logger(label: "TransportSecurityNIO.ClientIdentityFile", factory: SwiftLogNoOpLogHandler.init)
    ) throws {
        try self.init(paths: [certificateFile, privateKeyFile], checkInterval: checkInterval, logger: logger) {
            try ClientIdentity(certificateFile: certificateFile, privateKeyFile: privateKeyFile, passphrase: passphrase)
        }
    }

    private init(
        paths: [String],
        checkInterval: Duration,
        logger: Logger,
        load: @escaping @Sendable () throws -> ClientIdentity
    ) throws {
        self.paths = paths
        self.checkInterval = max(checkInterval, .zero)
        self.logger = logger
        self.load = load
        // Looked at before reading: a change made while they are read is seen at the next look.
        versions = paths.map(FileVersion.init(ofFileAt:))
        current = try Self.loading(load)
        checkedAt = clock.now
    }

    /// The identity to present now: the one last loaded, after looking at the files if
    /// `checkInterval` has passed since the last look (and reading them if they changed).
    public var identity: ClientIdentity {
        lock.withLock {
            if clock.now - checkedAt >= checkInterval { checkFiles() }
            return current
        }
    }

    /// Looks at the files now, whatever `checkInterval` says (a process told to reload, a
    /// test), reads them if they changed, and answers the identity to present.
    @discardableResult
    public func reloadIfChanged() -> ClientIdentity {
        lock.withLock {
            checkFiles()
            return current
        }
    }

    /// Why the files' latest change did not load (the previous identity is still presented), or
    /// `nil` when it loaded or nothing changed since the identity in use was read.
    public var lastReloadError: ClientIdentityError? {
        lock.withLock { reloadError }
    }

    /// Reads the files when their versions differ from those of the last reading. Called with
    /// the lock held.
    private func checkFiles() {
        checkedAt = clock.now
        let seen = paths.map(FileVersion.init(ofFileAt:))
        guard seen != versions else { return }
        versions = seen
        do {
            let loaded = try Self.loading(load)
            let renewed = loaded.chainFingerprint != current.chainFingerprint
            current = loaded
            reloadError = nil
            if renewed {
                logger.debug("client identity reloaded", metadata: [
                    "files": "\(paths.joined(separator: ", "))",
                    "subject": "\(loaded.leaf.subjectSummary)",
                    "notAfter": "\(loaded.leaf.certificate.notValidAfter)",
                ])
            }
        } catch {
            reloadError = error
            logger.warning("client identity files changed but do not load; the previous identity is still presented", metadata: [
                "files": "\(paths.joined(separator: ", "))",
                "error": "\(error)",
            ])
        }
    }

    /// The passphrase a passphrase file holds: its first line (empty when it has none), as
    /// `tsec get --passphrase-file` reads it too.
    package static func passphrase(inFileContents contents: Data) -> String {
        String(decoding: contents, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    }

    /// The passphrase in the file at `path`.
    private static func passphrase(in path: String) throws(ClientIdentityError) -> String {
        do {
            return passphrase(inFileContents: try InputFile.read(path, limit: 64 * 1024))
        } catch {
            throw ClientIdentityError(source: path, reason: .unreadable(error.description))
        }
    }

    /// Runs `load`, giving any error as a ``ClientIdentityError``.
    private static func loading(_ load: () throws -> ClientIdentity) throws(ClientIdentityError) -> ClientIdentity {
        do {
            return try load()
        } catch let error as ClientIdentityError {
            throw error
        } catch {
            throw ClientIdentityError(source: "client identity", reason: .unreadable("\(error)"))
        }
    }
}
