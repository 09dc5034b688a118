import Foundation
import SwiftASN1
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds certificate hierarchies at run time: roots, intermediates, leaves, self-signed
/// certificates and re-issued ones, on a fixed clock.
///
/// Nothing here is checked in: every test and the `tsec demo` lab generate their certificates
/// with a `PKI`, and evaluate them at ``now``, so nothing expires. Serial numbers count up from
/// one, so the same sequence of calls yields the same serials.
///
/// ```swift
/// let pki = PKI()
/// let root = try pki.issueRoot(.certificateAuthority("Example Root"))
/// let leaf = try pki.issue(.server("api.example.com"), by: root)
/// ```
public final class PKI: @unchecked Sendable {
    /// Seconds in a day, for validity offsets.
    public static let day: TimeInterval = 86_400

    /// The clock the default test PKI uses: 2030-01-01T00:00:00Z.
    public static let referenceDate = Date(timeIntervalSince1970: 1_893_456_000)

    /// The time every validity window is relative to, and the time to evaluate at.
    public let now: Date

    private let lock = NSLock()
    private var nextSerial: UInt64 = 1

    /// Creates a PKI whose certificates are valid around `now`.
    /// - Parameter now: The fixed clock; defaults to ``referenceDate``.
    public init(now: Date = PKI.referenceDate) {
        // Certificate times have one-second precision: keep the clock on a whole second.
        self.now = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
    }

    /// Issues a self-signed certificate: a root CA, or a self-signed server certificate.
    /// - Parameters:
    ///   - profile: What to put in the certificate.
    ///   - key: The key to certify; a new ``KeyAlgorithm/p256`` key when `nil`.
    public func issueSelfSigned(_ profile: CertificateProfile, key: KeyPair? = nil) throws -> IssuedCertificate {
        let keyPair = try key ?? KeyPair(generating: .p256)
        return try make(profile, subjectKey: keyPair, issuerName: nil, issuerKey: keyPair)
    }

    /// Issues a root CA certificate (self-signed, `cA = true`).
    /// - Parameters:
    ///   - profile: What to put in the certificate; usually ``CertificateProfile/certificateAuthority(_:pathLength:)``.
    ///   - algorithm: The kind of key to generate for it.
    public func issueRoot(_ profile: CertificateProfile, algorithm: KeyAlgorithm = .p256) throws -> IssuedCertificate {
        try issueSelfSigned(profile, key: KeyPair(generating: algorithm))
    }

    /// Issues a certificate signed by `issuer`.
    /// - Parameters:
    ///   - profile: What to put in the certificate.
    ///   - issuer: The CA that signs it.
    ///   - key: The key to certify; a new key of `algorithm` when `nil`.
    ///   - algorithm: The kind of key to generate when `key` is `nil`.
    public func issue(
        _ profile: CertificateProfile,
        by issuer: IssuedCertificate,
        key: KeyPair? = nil,
        algorithm: KeyAlgorithm = .p256
    ) throws -> IssuedCertificate {
        let keyPair = try key ?? KeyPair(generating: algorithm)
        return try make(
            profile,
            subjectKey: keyPair,
            issuerName: issuer.certificate.subject,
            issuerKey: issuer.keyPair,
            issuerCertificate: issuer.certificate
        )
    }

    /// Issues `original` again with a new serial: with the same key (`newKey == false`), or with a
    /// freshly generated key of the same kind.
    /// - Parameters:
    ///   - original: The certificate to re-issue.
    ///   - issuer: Who signs the new one; `nil` re-issues a self-signed certificate.
    ///   - newKey: Whether the new certificate gets a new key pair.
    public func reissue(_ original: IssuedCertificate, by issuer: IssuedCertificate?, newKey: Bool) throws
        -> IssuedCertificate
    {
        let keyPair = newKey ? try KeyPair(generating: original.keyPair.algorithm) : original.keyPair
        guard let issuer else {
            return try make(original.profile, subjectKey: keyPair, issuerName: nil, issuerKey: keyPair)
        }
        return try issue(original.profile, by: issuer, key: keyPair)
    }

    private func takeSerial() -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        defer { nextSerial += 1 }
        return nextSerial
    }

    private func make(
        _ profile: CertificateProfile,
        subjectKey: KeyPair,
        issuerName: DistinguishedName?,
        issuerKey: KeyPair,
        issuerCertificate: Certificate? = nil
    ) throws -> IssuedCertificate {
        let subject = try profile.subject
            ?? DistinguishedName {
                if let organization = profile.organization {
                    OrganizationName(organization)
                }
                CommonName(profile.commonName)
            }
        var extensions = try Self.extensions(
            for: profile,
            subjectKey: subjectKey.publicKey,
            authorityKey: issuerCertificate?.publicKey ?? subjectKey.publicKey
        )
        if profile.version == .v1 { extensions = Certificate.Extensions() }
        try profile.editExtensions?(&extensions)
        let serial = takeSerial()
        let certificate = try Certificate(
            version: profile.version,
            serialNumber: Certificate.SerialNumber(bytes: profile.serialNumberBytes.map { $0[...] } ?? Self.serialBytes(serial)[...]),
            publicKey: subjectKey.publicKey,
            notValidBefore: now.addingTimeInterval(profile.notBeforeOffset),
            notValidAfter: now.addingTimeInterval(profile.notAfterOffset),
            issuer: issuerName ?? subject,
            subject: subject,
            signatureAlgorithm: profile.signatureAlgorithm ?? issuerKey.algorithm.defaultSignatureAlgorithm,
            extensions: extensions,
            issuerPrivateKey: issuerKey.privateKey
        )
        return IssuedCertificate(certificate: certificate, keyPair: subjectKey, profile: profile)
    }

    private static func serialBytes(_ serial: UInt64) -> [UInt8] {
        // A positive INTEGER: big-endian, at least one byte, a leading zero when the top bit is set.
        var bytes = withUnsafeBytes(of: serial.bigEndian, Array.init).drop(while: { $0 == 0 })
        if bytes.isEmpty { bytes = [0x01] }
        if let first = bytes.first, first & 0x80 != 0 { bytes.insert(0, at: bytes.startIndex) }
        return Array(bytes)
    }

    private static func extensions(
        for profile: CertificateProfile,
        subjectKey: Certificate.PublicKey,
        authorityKey: Certificate.PublicKey
    ) throws -> Certificate.Extensions {
        var extensions = Certificate.Extensions()
        if profile.includesBasicConstraints {
            let constraints: BasicConstraints =
                profile.isCertificateAuthority
                ? .isCertificateAuthority(maxPathLength: profile.pathLengthConstraint) : .notCertificateAuthority
            try extensions.append(Certificate.Extension(constraints, critical: true))
        }
        if let keyUsage = profile.keyUsage {
            try extensions.append(Certificate.Extension(keyUsage, critical: true))
        }
        if let usages = profile.extendedKeyUsages {
            try extensions.append(Certificate.Extension(ExtendedKeyUsage(usages), critical: false))
        }
        var names: [GeneralName] = profile.dnsNames.map { .dnsName($0) }
        for address in profile.ipAddresses {
            guard let bytes = ipAddressBytes(address) else { throw PKIError.invalidIPAddress(address) }
            names.append(.ipAddress(ASN1OctetString(contentBytes: bytes[...])))
        }
        names += profile.emailAddresses.map { .rfc822Name($0) } + profile.uris.map { .uniformResourceIdentifier($0) }
        if !names.isEmpty {
            try extensions.append(Certificate.Extension(SubjectAlternativeNames(names), critical: false))
        }
        try extensions.append(Certificate.Extension(SubjectKeyIdentifier(hash: subjectKey), critical: false))
        try extensions.append(
            Certificate.Extension(
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: authorityKey).keyIdentifier),
                critical: false
            )
        )
        return extensions
    }

    private static func ipAddressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4, Array.init) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6, Array.init) }
        return nil
    }
}

/// Errors the ``PKI`` reports for a profile it cannot turn into a certificate.
public enum PKIError: Error, CustomStringConvertible, Sendable {
    /// An entry of ``CertificateProfile/ipAddresses`` is not an IPv4 or IPv6 address.
    case invalidIPAddress(String)

    /// A sentence describing the error.
    public var description: String {
        switch self {
        case .invalidIPAddress(let text): return "'\(text)' is not an IPv4 or IPv6 address"
        }
    }
}
