import FuzzDriver
import TransportSecurity

/// DER, PEM and PEM bundles: whatever parses must also yield its pin, details and DER again.
func fuzzCertificateLoading(_ input: UnsafeRawBufferPointer) {
    let bytes = input
    guard let certificates = try? CertificateLoader.certificates(from: bytes, source: "fuzz") else { return }
    for certificate in certificates {
        _ = certificate.spkiPin.description
        _ = CertificateDetails(certificate)
        let reparsed = try? DERCertificate(derBytes: certificate.derBytes)
        precondition(reparsed == certificate, "a loaded certificate does not parse again from its own DER")
    }
}

@main
enum FuzzCertificateLoadingMain {
    static func main() { runFuzzer(fuzzCertificateLoading) }
}
