import X509

/// Certificates indexed by subject name, for path building, and by their exact bytes, for
/// membership. Built once per store.
struct CertificateIndex: Sendable, Hashable {
    let bySubject: [DistinguishedName: [Certificate]]
    let members: Set<Certificate>
    let wrapped: [Certificate: DERCertificate]

    init(_ certificates: [DERCertificate]) {
        var bySubject: [DistinguishedName: [Certificate]] = [:]
        var wrapped: [Certificate: DERCertificate] = [:]
        for certificate in certificates {
            bySubject[certificate.certificate.subject, default: []].append(certificate.certificate)
            wrapped[certificate.certificate] = certificate
        }
        self.bySubject = bySubject
        self.members = Set(wrapped.keys)
        self.wrapped = wrapped
    }

    func contains(_ certificate: DERCertificate) -> Bool { wrapped[certificate.certificate] == certificate }

    static func == (lhs: CertificateIndex, rhs: CertificateIndex) -> Bool { lhs.members == rhs.members }

    func hash(into hasher: inout Hasher) { hasher.combine(members.count) }
}
