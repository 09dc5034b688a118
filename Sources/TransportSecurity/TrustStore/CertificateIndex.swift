import X509

/// Certificates indexed by subject name, for path building and membership.
///
/// Lookups hash only distinguished names and compare certificates by their signed bytes:
/// hashing whole `Certificate` values costs microseconds each, which a warm connection cannot
/// afford.
struct CertificateIndex: Sendable, Hashable {
    private let bySubject: [DistinguishedName: [DERCertificate]]
    private let parsedBySubject: [DistinguishedName: [Certificate]]

    init(_ certificates: some Sequence<DERCertificate>) {
        var bySubject: [DistinguishedName: [DERCertificate]] = [:]
        for certificate in certificates {
            bySubject[certificate.certificate.subject, default: []].append(certificate)
        }
        self.bySubject = bySubject
        self.parsedBySubject = bySubject.mapValues { $0.map(\.certificate) }
    }

    /// The members' fingerprints in a fixed order: equality and hashing, computed when asked.
    private var fingerprints: [[UInt8]] {
        bySubject.values.flatMap { $0.map(\.sha256Fingerprint) }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The certificates whose subject is `name`, as the verifier wants them.
    func certificates(named name: DistinguishedName) -> [Certificate]? { parsedBySubject[name] }

    /// The indexed certificate that is `certificate`, if any.
    func wrapped(_ certificate: Certificate) -> DERCertificate? {
        bySubject[certificate.subject]?.first { $0.isSame(as: certificate) }
    }

    func contains(_ certificate: Certificate) -> Bool { wrapped(certificate) != nil }

    func contains(_ certificate: DERCertificate) -> Bool {
        bySubject[certificate.certificate.subject]?.contains(certificate) ?? false
    }

    static func == (lhs: CertificateIndex, rhs: CertificateIndex) -> Bool { lhs.fingerprints == rhs.fingerprints }

    func hash(into hasher: inout Hasher) { hasher.combine(fingerprints) }
}
