import Foundation

extension TrustStore {
    /// The bundle files tried, in order, when neither `SSL_CERT_FILE` nor `SSL_CERT_DIR` is set:
    /// Debian and Ubuntu, Fedora and RHEL, Alpine and macOS.
    public static let wellKnownBundlePaths = [
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/pki/tls/certs/ca-bundle.crt",
        "/etc/ssl/cert.pem",
    ]

    /// The machine's trust store, loaded once on first use and then shared.
    ///
    /// Found as OpenSSL finds it: the PEM bundle named by `SSL_CERT_FILE`, else the certificate files of
    /// the directories in `SSL_CERT_DIR` (colon-separated), else the first existing file of
    /// ``wellKnownBundlePaths``. Every evaluation can use another store instead; tests always do.
    /// - Throws: ``CertificateLoadingError`` when no store is found or the one named cannot be read.
    public static var system: TrustStore {
        get throws { try SystemTrustStoreCache.shared.store() }
    }

    /// Forgets the shared system store, so that the next use of ``system`` reads it again
    /// (after the machine's CA bundle was updated, say). Cached decisions made with the old store
    /// are not reused: the cache keys on the store's ``fingerprint``.
    public static func reloadSystem() {
        SystemTrustStoreCache.shared.reset()
    }

    /// Locates and reads the system store now, without caching.
    /// - Parameters:
    ///   - environment: The environment to read `SSL_CERT_FILE` and `SSL_CERT_DIR` from.
    ///   - bundlePaths: The fallback bundle files, in order.
    public static func loadSystem(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        bundlePaths: [String] = wellKnownBundlePaths
    ) throws -> TrustStore {
        if let file = environment["SSL_CERT_FILE"], !file.isEmpty {
            return TrustStore(try CertificateLoader.certificates(atPath: file), origin: file)
        }
        if let directories = environment["SSL_CERT_DIR"], !directories.isEmpty {
            var certificates: [DERCertificate] = []
            for directory in directories.split(separator: ":").map(String.init) {
                // Hashed links (`abcd1234.0`) and `.pem` names point at the same files: read every
                // file, keep what parses; duplicates fall away in the store.
                certificates += try CertificateLoader.certificates(inDirectory: directory, extensions: nil).certificates
            }
            return TrustStore(certificates, origin: directories)
        }
        for path in bundlePaths where FileManager.default.isReadableFile(atPath: path) {
            return TrustStore(try CertificateLoader.certificates(atPath: path), origin: path)
        }
        throw CertificateLoadingError(
            source: "system trust store",
            reason: .unreadable(
                "SSL_CERT_FILE and SSL_CERT_DIR are unset and none of \(bundlePaths.joined(separator: ", ")) exists"
            )
        )
    }
}

/// Holds the shared system store: loaded once, reloadable.
final class SystemTrustStoreCache: @unchecked Sendable {
    static let shared = SystemTrustStoreCache()

    private let lock = NSLock()
    private var loaded: Result<TrustStore, CertificateLoadingError>?

    func store() throws -> TrustStore {
        lock.lock()
        defer { lock.unlock() }
        if let loaded { return try loaded.get() }
        let result: Result<TrustStore, CertificateLoadingError>
        do {
            result = .success(try TrustStore.loadSystem())
        } catch let error as CertificateLoadingError {
            result = .failure(error)
        } catch {
            result = .failure(CertificateLoadingError(source: "system trust store", reason: .unreadable("\(error)")))
        }
        loaded = result
        return try result.get()
    }

    func reset() {
        lock.lock()
        loaded = nil
        lock.unlock()
    }
}
