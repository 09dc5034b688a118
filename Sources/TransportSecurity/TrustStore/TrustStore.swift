import Crypto
import Foundation
import X509

/// A set of certificates trusted as roots (anchors).
///
/// A store's ``fingerprint`` is a digest of its contents, so a decision cached under one store is
/// never reused for another, and a changed store never answers from a stale cache entry.
public struct TrustStore: Sendable, Hashable, CustomStringConvertible {
    /// The anchors, without duplicates.
    public let certificates: [DERCertificate]
    /// Where the store came from (a path, or "custom").
    public let origin: String
    /// SHA-256 over the sorted fingerprints of the anchors: equal stores have equal fingerprints.
    public let fingerprint: [UInt8]
    let index: CertificateIndex

    /// Creates a store of the given anchors.
    /// - Parameters:
    ///   - certificates: The anchors; duplicates are dropped.
    ///   - origin: A description of where they came from, used in messages.
    public init(_ certificates: some Sequence<DERCertificate>, origin: String = "custom") {
        var seen = Set<DERCertificate>()
        let unique = certificates.filter { seen.insert($0).inserted }
        self.certificates = unique
        self.origin = origin
        self.fingerprint = Self.fingerprint(of: unique)
        self.index = CertificateIndex(unique)
    }

    /// SHA-256 over the sorted SHA-256 fingerprints of `certificates`: the ``fingerprint`` a store
    /// of them has, without building the store.
    public static func fingerprint(of certificates: some Sequence<DERCertificate>) -> [UInt8] {
        var hasher = SHA256()
        for digest in Set(certificates).map(\.sha256Fingerprint).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            hasher.update(data: digest)
        }
        return Array(hasher.finalize())
    }

    /// An empty store: nothing is trusted.
    public static let empty = TrustStore([], origin: "empty")

    /// This store with `anchors` added.
    public func adding(_ anchors: some Sequence<DERCertificate>) -> TrustStore {
        TrustStore(certificates + Array(anchors), origin: origin + " + anchors")
    }

    /// Whether `certificate` is one of the anchors, byte for byte.
    public func contains(_ certificate: DERCertificate) -> Bool { index.contains(certificate) }

    /// A one-line summary: origin and size (`/etc/ssl/certs/ca-certificates.crt: 146 certificates`).
    public var description: String { "\(origin): \(certificates.count) certificate\(certificates.count == 1 ? "" : "s")" }

    /// Whether both hold the same certificates (their fingerprints agree), whatever their origin.
    public static func == (lhs: TrustStore, rhs: TrustStore) -> Bool { lhs.fingerprint == rhs.fingerprint }

    /// Hashes the store's fingerprint.
    public func hash(into hasher: inout Hasher) { hasher.combine(byteArray: fingerprint) }
}
