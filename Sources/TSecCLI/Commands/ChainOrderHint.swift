import TransportSecurity
import X509

/// A note for a chain file that lists a CA certificate before its leaf (`cat ca.pem leaf.pem`):
/// evaluation takes the first certificate for the server's, so the rejection would name the CA
/// certificate and hide the mistake in the file.
enum ChainOrderHint {
    /// The note, when the first certificate is a CA and a later one is not; `nil` otherwise.
    static func note(for chain: [DERCertificate], file: String) -> String? {
        guard let first = chain.first, isCertificateAuthority(first) else { return nil }
        guard let leafIndex = chain.indices.dropFirst().first(where: { !isCertificateAuthority(chain[$0]) }) else { return nil }
        return "note: \(file) lists \(first.subjectSummary), a CA certificate, first; the server's certificate "
            + "(\(chain[leafIndex].subjectSummary), certificate #\(leafIndex + 1)) must come first, then the certificates that issued it"
    }

    private static func isCertificateAuthority(_ certificate: DERCertificate) -> Bool {
        guard case .isCertificateAuthority = try? certificate.certificate.extensions.basicConstraints else { return false }
        return true
    }
}
