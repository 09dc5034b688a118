/// How revocation is checked on a validated path, like Alamofire's `RevocationTrustEvaluator`:
/// which methods, in which order, whether the network may be used, and what happens when no
/// answer can be had.
public struct RevocationPolicy: Sendable, Hashable {
    /// Methods and restrictions.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The value.
        public let rawValue: Int
        /// Makes options from their raw value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Ask OCSP responders (the certificate's authority-information-access URI).
        public static let ocsp = Options(rawValue: 1 << 0)
        /// Use CRLs: the policy's own, and those at the certificate's CRL distribution points.
        public static let crl = Options(rawValue: 1 << 1)
        /// With both methods, try CRLs first (OCSP first otherwise).
        public static let preferCRL = Options(rawValue: 1 << 2)
        /// Never go to the network: only the policy's CRLs and what the fetcher has cached.
        public static let networkAccessDisabled = Options(rawValue: 1 << 3)
        /// Check the leaf only; intermediates are taken as path validation left them (many
        /// private PKIs publish no revocation information for their intermediates).
        public static let leafOnly = Options(rawValue: 1 << 4)
        /// OCSP and CRLs, OCSP first.
        public static let useAnyAvailable: Options = [.ocsp, .crl]
    }

    /// What happens to a certificate no method could answer for.
    public enum FailureMode: Sendable, Hashable {
        /// Soft-fail: no answer (a responder that is down, a CRL that cannot be fetched or is
        /// stale) lets the connection through. A certificate that is revoked is always refused.
        case soft
        /// Hard-fail, "require a positive response": every certificate of the path but the anchor
        /// needs a current answer saying it is not revoked, else the connection is refused.
        case hard
    }

    /// Methods and restrictions.
    public var options: Options
    /// Soft-fail or hard-fail.
    public var failureMode: FailureMode
    /// CRLs given by the application (from files), used before any fetched one.
    public var crls: [CertificateRevocationList]

    /// A policy.
    public init(options: Options = .useAnyAvailable, failureMode: FailureMode = .soft, crls: [CertificateRevocationList] = []) {
        self.options = options
        self.failureMode = failureMode
        self.crls = crls
    }
}

/// Fetches revocation information; `SecureSession` provides one that goes through a session and
/// caches OCSP responses and CRLs until their `nextUpdate`.
public protocol RevocationFetching: AnyObject, Sendable {
    /// The DER OCSP response to a DER OCSP request from `responderURL`; with `networkAllowed`
    /// false, only a cached response.
    func ocspResponse(request: [UInt8], responderURL: String, networkAllowed: Bool) async throws -> [UInt8]
    /// The CRL at `url` (DER or PEM); with `networkAllowed` false, only a cached one.
    func crl(at url: String, networkAllowed: Bool) async throws -> [UInt8]
    /// Told that the response it gave to `request` could not be used (it does not verify, is not
    /// current, says `unknown`, or claims a revocation): a fetcher that keeps responses drops it,
    /// so that a forged response is never served again until the `nextUpdate` it claims.
    func discardOCSPResponse(request: [UInt8], responderURL: String)
    /// Told that the CRL it gave for `url` could not be used (not signed by the certificate's
    /// issuer, not current, not conforming): a fetcher that keeps CRLs drops it.
    func discardCRL(at url: String)
}

extension RevocationFetching {
    /// Does nothing: a fetcher that keeps nothing has nothing to drop.
    public func discardOCSPResponse(request: [UInt8], responderURL: String) {}
    /// Does nothing: a fetcher that keeps nothing has nothing to drop.
    public func discardCRL(at url: String) {}
}
