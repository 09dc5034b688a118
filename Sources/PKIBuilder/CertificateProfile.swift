import Foundation
import X509

/// Everything that describes a certificate to issue, apart from its issuer.
///
/// Times are offsets from the ``PKI``'s fixed clock, so a test that fixes the clock gets the same
/// validity windows on every run.
public struct CertificateProfile: Sendable {
    /// The subject's common name.
    public var commonName: String
    /// Extra organization name for the subject, if any.
    public var organization: String?
    /// DNS names for the subjectAltName extension (wildcards such as `*.example.com` allowed).
    public var dnsNames: [String]
    /// IP addresses (IPv4 or IPv6 text) for the subjectAltName extension.
    public var ipAddresses: [String]
    /// Email addresses (rfc822Name) for the subjectAltName extension.
    public var emailAddresses: [String] = []
    /// URIs for the subjectAltName extension (a SPIFFE ID: `spiffe://example.org/ns/a/sa/b`).
    public var uris: [String] = []
    /// The start of the validity window, relative to the PKI's clock.
    public var notBeforeOffset: TimeInterval
    /// The end of the validity window, relative to the PKI's clock.
    public var notAfterOffset: TimeInterval
    /// Whether the certificate is a certificate authority (basicConstraints `cA`).
    public var isCertificateAuthority: Bool
    /// The basicConstraints path length constraint of a CA, if any.
    public var pathLengthConstraint: Int?
    /// Whether to add a basicConstraints extension at all (a v3 leaf often has `cA = false`).
    public var includesBasicConstraints: Bool
    /// The extended key usages; `nil` leaves the extension out.
    public var extendedKeyUsages: [ExtendedKeyUsage.Usage]?
    /// The key usage; `nil` leaves the extension out.
    public var keyUsage: KeyUsage?
    /// A signature algorithm that overrides the issuer key's default one.
    public var signatureAlgorithm: Certificate.SignatureAlgorithm?
    /// A subject that replaces the one made of ``organization`` and ``commonName`` (an empty
    /// one, several common names, an odd attribute).
    public var subject: DistinguishedName?
    /// Serial-number bytes (big-endian) that replace the PKI's counter.
    public var serialNumberBytes: [UInt8]?
    /// The certificate's version; a version 1 certificate is issued without extensions (unless
    /// ``editExtensions`` adds some).
    public var version: Certificate.Version = .v3
    /// A last change to the extensions before signing, for certificates a conforming CA would not
    /// issue: a missing key identifier, a critical flag, an extra extension.
    public var editExtensions: (@Sendable (inout Certificate.Extensions) throws -> Void)?

    /// A profile with every field given explicitly.
    public init(
        commonName: String,
        organization: String? = nil,
        dnsNames: [String] = [],
        ipAddresses: [String] = [],
        notBeforeOffset: TimeInterval = -PKI.day,
        notAfterOffset: TimeInterval = 90 * PKI.day,
        isCertificateAuthority: Bool = false,
        pathLengthConstraint: Int? = nil,
        includesBasicConstraints: Bool = true,
        extendedKeyUsages: [ExtendedKeyUsage.Usage]? = nil,
        keyUsage: KeyUsage? = nil,
        signatureAlgorithm: Certificate.SignatureAlgorithm? = nil
    ) {
        self.commonName = commonName
        self.organization = organization
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.notBeforeOffset = notBeforeOffset
        self.notAfterOffset = notAfterOffset
        self.isCertificateAuthority = isCertificateAuthority
        self.pathLengthConstraint = pathLengthConstraint
        self.includesBasicConstraints = includesBasicConstraints
        self.extendedKeyUsages = extendedKeyUsages
        self.keyUsage = keyUsage
        self.signatureAlgorithm = signatureAlgorithm
    }

    /// A root or intermediate CA: `cA = true`, keyCertSign and cRLSign, ten years of validity.
    public static func certificateAuthority(_ commonName: String, pathLength: Int? = nil) -> CertificateProfile {
        CertificateProfile(
            commonName: commonName,
            notBeforeOffset: -30 * PKI.day,
            notAfterOffset: 3650 * PKI.day,
            isCertificateAuthority: true,
            pathLengthConstraint: pathLength,
            keyUsage: KeyUsage(keyCertSign: true, cRLSign: true)
        )
    }

    /// A TLS server certificate: `cA = false`, digitalSignature, serverAuth, the given names.
    public static func server(
        _ commonName: String,
        dnsNames: [String]? = nil,
        ipAddresses: [String] = []
    ) -> CertificateProfile {
        CertificateProfile(
            commonName: commonName,
            dnsNames: dnsNames ?? (ipAddresses.isEmpty ? [commonName] : []),
            ipAddresses: ipAddresses,
            extendedKeyUsages: [.serverAuth],
            keyUsage: KeyUsage(digitalSignature: true, keyEncipherment: true)
        )
    }

    /// A TLS client certificate: `cA = false`, digitalSignature, clientAuth, the given names.
    public static func client(
        _ commonName: String,
        dnsNames: [String] = [],
        emailAddresses: [String] = [],
        uris: [String] = []
    ) -> CertificateProfile {
        var profile = CertificateProfile(
            commonName: commonName,
            dnsNames: dnsNames,
            extendedKeyUsages: [.clientAuth],
            keyUsage: KeyUsage(digitalSignature: true)
        )
        profile.emailAddresses = emailAddresses
        profile.uris = uris
        return profile
    }

    /// The same profile with another validity window, relative to the PKI's clock.
    public func valid(from notBefore: TimeInterval, until notAfter: TimeInterval) -> CertificateProfile {
        var copy = self
        copy.notBeforeOffset = notBefore
        copy.notAfterOffset = notAfter
        return copy
    }
}
