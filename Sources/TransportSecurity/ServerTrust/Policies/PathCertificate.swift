import SwiftASN1
import X509

/// A certificate of a ``CertificatePath``, with the extensions the policies read decoded on first
/// use and kept: the subjectAltName, for instance, is read by the host, syntax, common-name and
/// name-constraint policies, and decoded once.
///
/// A decoding error is kept too, so every policy that reads a malformed extension sees the same
/// error.
public final class PathCertificate {
    /// The certificate.
    public let certificate: Certificate

    private var decodedSubjectAlternativeNames: Result<SubjectAlternativeNames?, any Error>?
    private var decodedBasicConstraints: Result<BasicConstraints?, any Error>?
    private var decodedKeyUsage: Result<KeyUsage?, any Error>?
    private var decodedExtendedKeyUsage: Result<ExtendedKeyUsage?, any Error>?
    private var decodedAuthorityKeyIdentifier: Result<AuthorityKeyIdentifier?, any Error>?
    private var decodedSubjectKeyIdentifier: Result<SubjectKeyIdentifier?, any Error>?
    private var decodedNameConstraints: Result<NameConstraints?, any Error>?
    private var comparedNames: Bool?

    /// Wraps a certificate.
    public init(_ certificate: Certificate) {
        self.certificate = certificate
    }

    /// The subject as text, for failure messages.
    public var subjectText: String { certificate.subjectText }

    /// Whether the issuer and subject names are equal (RFC 5280's self-issued certificate).
    public var isSelfIssued: Bool {
        if let comparedNames { return comparedNames }
        let selfIssued = certificate.issuer == certificate.subject
        comparedNames = selfIssued
        return selfIssued
    }

    /// The subjectAltName extension, if present.
    /// - Throws: The decoding error of a malformed extension.
    public func subjectAlternativeNames() throws -> SubjectAlternativeNames? {
        try Self.decodeOnce(&decodedSubjectAlternativeNames) { try certificate.extensions.subjectAlternativeNames }
    }

    /// The basicConstraints extension, if present.
    /// - Throws: The decoding error of a malformed extension.
    public func basicConstraints() throws -> BasicConstraints? {
        try Self.decodeOnce(&decodedBasicConstraints) { try certificate.extensions.basicConstraints }
    }

    /// The keyUsage extension, if present.
    /// - Throws: The decoding error of a malformed extension.
    public func keyUsage() throws -> KeyUsage? {
        try Self.decodeOnce(&decodedKeyUsage) { try certificate.extensions.keyUsage }
    }

    /// The extendedKeyUsage extension, if present.
    /// - Throws: The decoding error of a malformed extension.
    public func extendedKeyUsage() throws -> ExtendedKeyUsage? {
        try Self.decodeOnce(&decodedExtendedKeyUsage) { try certificate.extensions.extendedKeyUsage }
    }

    /// The authorityKeyIdentifier extension, if present.
    /// - Throws: The decoding error of a malformed extension.
    public func authorityKeyIdentifier() throws -> AuthorityKeyIdentifier? {
        try Self.decodeOnce(&decodedAuthorityKeyIdentifier) { try certificate.extensions.authorityKeyIdentifier }
    }

    /// The subjectKeyIdentifier extension, if present.
    /// - Throws: The decoding error of a malformed extension.
    public func subjectKeyIdentifier() throws -> SubjectKeyIdentifier? {
        try Self.decodeOnce(&decodedSubjectKeyIdentifier) { try certificate.extensions.subjectKeyIdentifier }
    }

    /// The nameConstraints extension, if present.
    /// - Throws: The decoding error of a malformed extension.
    public func nameConstraints() throws -> NameConstraints? {
        try Self.decodeOnce(&decodedNameConstraints) { try certificate.extensions.nameConstraints }
    }

    /// Whether the extension `oid` is present and marked critical.
    public func hasCriticalExtension(_ oid: ASN1ObjectIdentifier) -> Bool {
        certificate.extensions[oid: oid]?.critical == true
    }

    private static func decodeOnce<Value>(_ slot: inout Result<Value, any Error>?, _ decode: () throws -> Value) throws -> Value {
        if let slot { return try slot.get() }
        let result = Result(catching: decode)
        slot = result
        return try result.get()
    }
}

@available(*, unavailable)
extension PathCertificate: Sendable {}
