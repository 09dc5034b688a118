/// Fetches what a certificate's authority-information-access `caIssuers` URL serves (RFC 5280
/// §4.2.2.1): the certificate of its issuer, as DER, or several in a PKCS#7 certs-only bundle
/// (PEM is read too). ``IntermediateFetchingEvaluator`` uses it to complete a chain a server sent
/// without its intermediates, as Apple's SecTrust does when network fetches are allowed.
///
/// The URLs come from certificates the server presented, before anything about them is
/// trusted: a fetcher asks only `http` and `https` URLs, bounds time and size, and should go
/// through a session of its own (`SessionIssuerFetcher` in `SecureSession`).
public protocol IssuerCertificateFetching: AnyObject, Sendable {
    /// The bytes served at `url`, an `http` or `https` `caIssuers` URL.
    func issuerCertificates(at url: String) async throws -> [UInt8]
}
