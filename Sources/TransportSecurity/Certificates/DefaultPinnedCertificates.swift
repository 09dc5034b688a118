import Foundation

/// The *default pinned certificates* of directories: each directory is read once, and its
/// certificates are shared by every policy made from it.
public final class DefaultPinnedCertificates: @unchecked Sendable {
    /// The process-wide cache.
    public static let shared = DefaultPinnedCertificates()

    private let lock = NSLock()
    private var loaded: [String: [DERCertificate]] = [:]

    /// Creates an empty cache (tests make their own).
    public init() {}

    /// The certificates of every certificate file of `directory`, read on first use.
    /// - Throws: ``DefaultPinnedCertificatesError`` when a file does not parse (nothing is cached
    ///   then, so a fixed file is read next time), or ``CertificateLoadingError`` when the
    ///   directory cannot be listed.
    public func certificates(inDirectory directory: String) throws -> [DERCertificate] {
        let key = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath().path
        lock.lock()
        defer { lock.unlock() }
        if let cached = loaded[key] { return cached }
        let contents = try CertificateLoader.certificates(inDirectory: directory)
        guard contents.failures.isEmpty else {
            throw DefaultPinnedCertificatesError(directory: directory, failures: contents.failures)
        }
        loaded[key] = contents.certificates
        return contents.certificates
    }
}

/// Certificate files of a pin directory that did not parse.
public struct DefaultPinnedCertificatesError: Error, Sendable, CustomStringConvertible {
    /// The directory.
    public let directory: String
    /// One error per file that failed.
    public let failures: [CertificateLoadingError]

    /// The directory and every failing file with its reason.
    public var description: String {
        "\(failures.count) certificate file(s) in \(directory) could not be used as pins: "
            + failures.map(\.description).joined(separator: "; ")
    }
}
