import X509

extension DERCertificate {
    /// Where the certificate's issuer publishes its own certificate: the URIs of the
    /// authority-information-access `caIssuers` entries, as written (none when the extension is
    /// absent or does not parse).
    public var issuerCertificateURLs: [String] {
        (try? certificate.extensions.authorityInformationAccess)?.locations(of: .issuingCA) ?? []
    }
}

extension AuthorityInformationAccess {
    /// The locations of the entries of `method`: a URI as written, another kind of name as
    /// people read it (`DNS:…`, `dirName:…`).
    func locations(of method: AccessDescription.AccessMethod) -> [String] {
        filter { $0.method == method }.map { description in
            guard case .uniformResourceIdentifier(let uri) = description.location else { return description.location.readable }
            return uri
        }
    }
}
