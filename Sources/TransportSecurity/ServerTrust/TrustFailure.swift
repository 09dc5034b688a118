/// One reason a server trust is not trusted: machine-readable ``code``, the certificate concerned,
/// and a sentence a person can act on.
public struct TrustFailure: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The kinds of failure. Each is either recoverable (a user could knowingly override it, as
    /// Apple's `kSecTrustResultRecoverableTrustFailure`) or fatal.
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        /// The server presented no certificate.
        case emptyChain
        /// A certificate of the path is past its notAfter date.
        case expired
        /// A certificate of the path is before its notBefore date.
        case notYetValid
        /// The leaf does not name the host in its subjectAltName.
        case hostnameMismatch
        /// The path ends at a self-signed certificate that is not an anchor.
        case untrustedRoot
        /// No certificate, presented or anchor, issued some certificate of the chain.
        case missingIssuer
        /// A certificate's signature does not verify with its issuer's key.
        case badSignature
        /// A certificate of the chain could not be parsed or holds a malformed extension.
        case malformedCertificate
        /// A certificate has a critical extension this library does not process.
        case unhandledCriticalExtension
        /// Basic constraints, name constraints, key usage or the certificate version forbid the path.
        case constraintViolation
        /// The leaf's extended key usage does not allow TLS server authentication.
        case extendedKeyUsage
        /// The leaf is a CA certificate, not an end-entity certificate.
        case leafIsCertificateAuthority
        /// The path is longer than ``PathBuildingLimits/maximumPathLength``.
        case pathTooLong
        /// Path building exceeded ``PathBuildingLimits/maximumWork`` before finding a valid path.
        case workBudgetExceeded
        /// The trust store could not be loaded.
        case trustStoreUnavailable
        /// A certificate breaks the profile of RFC 5280 or the CA/Browser Forum's Baseline
        /// Requirements in a way no conforming CA issues (missing key identifiers, a zero or
        /// over-long serial number, an empty CA subject, a common name that is not a subjectAltName).
        case misissued
        /// A key of the path is too weak or malformed (an RSA modulus under 2048 bits or not a
        /// multiple of 8).
        case weakKey
        /// A certificate of the path below the anchor is signed with SHA-1 or MD5 (a hash whose
        /// collisions let a signature be forged), or with an algorithm that is not accepted.
        case weakSignature

        /// Whether a user could knowingly accept this failure (expired, not yet valid, hostname
        /// mismatch, unknown root or issuer); everything else is fatal.
        public var isRecoverable: Bool {
            switch self {
            case .expired, .notYetValid, .hostnameMismatch, .untrustedRoot, .missingIssuer: return true
            default: return false
            }
        }
    }

    /// What failed.
    public let code: Code
    /// The subject of the certificate concerned, if one is.
    public let certificate: String?
    /// The specifics: dates, names, what was expected.
    public let detail: String

    /// Creates a failure.
    public init(_ code: Code, certificate: String? = nil, detail: String) {
        self.code = code
        // Names from certificates go into these sentences: no control character is shown raw.
        self.certificate = certificate?.escapingControlCharacters
        self.detail = detail.escapingControlCharacters
    }

    /// A sentence: the certificate, what failed, and the specifics.
    public var description: String {
        if let certificate { return "\(certificate): \(detail)" }
        return detail
    }
}
