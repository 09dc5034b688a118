import Crypto
import Foundation
import SwiftASN1
import X509
import CryptoExtras

/// What a person needs to know about one certificate, as `tsec inspect` shows it: names,
/// serial, validity relative to a moment, alternative names, key, signature, usages, CA
/// constraints, SPKI pin and fingerprint. Extensions that do not parse are reported as such,
/// never skipped.
public struct CertificateDetails: Sendable, Encodable {
    /// The subject distinguished name (RFC 4514).
    public let subject: String
    /// The issuer distinguished name (RFC 4514).
    public let issuer: String
    /// Whether subject and issuer are the same name.
    public let isSelfIssued: Bool
    /// The X.509 version (`v1`, `v3`).
    public let version: String
    /// The serial number as colon-separated hex bytes.
    public let serialNumber: String
    /// The first moment of validity (ISO 8601).
    public let notBefore: String
    /// The last moment of validity (ISO 8601).
    public let notAfter: String
    /// Whole days from the moment inspected to `notAfter`; negative once expired.
    public let daysLeft: Int
    /// `valid, N days left`, `expired N days ago` or `not valid yet, starts in N days`.
    public let validity: String
    /// Subject alternative names: `DNS:…`, `IP:…`, `email:…`, `URI:…`.
    public let subjectAlternativeNames: [String]
    /// The SPIFFE ID, when the certificate is an X.509 SVID (``PeerIdentity/spiffeID``).
    public let spiffeID: String?
    /// `EC P-256`, `EC P-384`, `EC P-521`, `RSA` or `Ed25519`.
    public let keyType: String
    /// The key size in bits.
    public let keyBits: Int
    /// The signature algorithm (`ecdsaWithSHA256`, `sha256WithRSAEncryption`, `ed25519`, or the OID).
    public let signatureAlgorithm: String
    /// The key usages set, when the extension is present.
    public let keyUsage: [String]?
    /// The extended key usages, when the extension is present.
    public let extendedKeyUsage: [String]?
    /// Whether basic constraints say CA; `nil` when the extension is absent.
    public let isCertificateAuthority: Bool?
    /// The CA's path length constraint, if it has one.
    public let pathLengthConstraint: Int?
    /// Where the issuer's certificate is published: the authority-information-access
    /// `caIssuers` URLs (what `IntermediateFetchingEvaluator` fetches).
    public let issuerCertificateURLs: [String]
    /// The OCSP responders of the authority information access.
    public let ocspResponderURLs: [String]
    /// Extensions present but malformed, with why.
    public let malformedExtensions: [String]
    /// The SPKI pin, `sha256/<base64>`.
    public let spkiPin: String
    /// SHA-256 of the whole certificate, colon-separated hex.
    public let sha256Fingerprint: String

    /// Describes `certificate` as of `now`.
    public init(_ certificate: DERCertificate, at now: Date = Date()) {
        let parsed = certificate.certificate
        subject = String(describing: parsed.subject).escapingControlCharacters
        issuer = String(describing: parsed.issuer).escapingControlCharacters
        isSelfIssued = parsed.subject == parsed.issuer
        version = String(describing: parsed.version).replacingOccurrences(of: "X509", with: "")
        serialNumber = Self.hex(parsed.serialNumber.bytes)
        notBefore = parsed.notValidBefore.formatted(.iso8601)
        notAfter = parsed.notValidAfter.formatted(.iso8601)
        daysLeft = Int((parsed.notValidAfter.timeIntervalSince(now) / 86_400).rounded(.down))
        validity = Self.validity(notBefore: parsed.notValidBefore, notAfter: parsed.notValidAfter, now: now)
        (keyType, keyBits) = Self.key(parsed.publicKey)
        signatureAlgorithm = String(describing: parsed.signatureAlgorithm).replacingOccurrences(of: "SignatureAlgorithm.", with: "")
        spkiPin = certificate.spkiPin.description
        sha256Fingerprint = Self.hex(certificate.sha256Fingerprint)

        var malformed: [String] = []
        func read<T>(_ name: String, _ body: () throws -> T?) -> T? {
            do {
                return try body()
            } catch {
                malformed.append("\(name): \(error)")
                return nil
            }
        }
        let extensions = parsed.extensions
        let alternativeNames = read("subjectAltName") { try extensions.subjectAlternativeNames }.map(Array.init) ?? []
        subjectAlternativeNames = alternativeNames.map(\.readable.escapingControlCharacters)
        spiffeID = SPIFFEID.svidID(among: alternativeNames.compactMap {
            if case .uniformResourceIdentifier(let uri) = $0 { uri } else { nil }
        })?.description
        keyUsage = read("keyUsage") { try extensions.keyUsage }.map(Self.usages)
        extendedKeyUsage = read("extKeyUsage") { try extensions.extendedKeyUsage }.map { $0.map(Self.usage) }
        switch read("basicConstraints", { try extensions.basicConstraints }) {
        case .isCertificateAuthority(let maximumPathLength):
            isCertificateAuthority = true
            pathLengthConstraint = maximumPathLength
        case .notCertificateAuthority:
            isCertificateAuthority = false
            pathLengthConstraint = nil
        case nil:
            isCertificateAuthority = nil
            pathLengthConstraint = nil
        }
        let access = read("authorityInfoAccess") { try extensions.authorityInformationAccess }
        issuerCertificateURLs = access?.locations(of: .issuingCA).map(\.escapingControlCharacters) ?? []
        ocspResponderURLs = access?.locations(of: .ocspServer).map(\.escapingControlCharacters) ?? []
        malformedExtensions = malformed
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    private static func validity(notBefore: Date, notAfter: Date, now: Date) -> String {
        func days(_ interval: TimeInterval) -> String {
            let count = Int((interval / 86_400).rounded(.down))
            return count == 1 ? "1 day" : "\(count) days"
        }
        if now > notAfter { return "expired \(days(now.timeIntervalSince(notAfter))) ago" }
        if now < notBefore { return "not valid yet, starts in \(days(notBefore.timeIntervalSince(now)))" }
        return "valid, \(days(notAfter.timeIntervalSince(now))) left"
    }

    /// The key's type (`EC P-256`, `RSA`, `Ed25519`, …) and size in bits.
    static func key(_ key: Certificate.PublicKey) -> (String, Int) {
        if P256.Signing.PublicKey(key) != nil { return ("EC P-256", 256) }
        if P384.Signing.PublicKey(key) != nil { return ("EC P-384", 384) }
        if P521.Signing.PublicKey(key) != nil { return ("EC P-521", 521) }
        // swift-crypto reads the modulus length with BoringSSL's RSA_bits: exact, so a 2052-bit
        // modulus is 2052 bits, not 2056.
        if let rsa = _RSA.Signing.PublicKey(key) { return ("RSA", rsa.keySizeInBits) }
        if Curve25519.Signing.PublicKey(key) != nil { return ("Ed25519", 256) }
        return (String(describing: key), 0)
    }

    private static func usages(_ usage: KeyUsage) -> [String] {
        let all: [(Bool, String)] = [
            (usage.digitalSignature, "digitalSignature"), (usage.nonRepudiation, "nonRepudiation"),
            (usage.keyEncipherment, "keyEncipherment"), (usage.dataEncipherment, "dataEncipherment"),
            (usage.keyAgreement, "keyAgreement"), (usage.keyCertSign, "keyCertSign"), (usage.cRLSign, "cRLSign"),
            (usage.encipherOnly, "encipherOnly"), (usage.decipherOnly, "decipherOnly"),
        ]
        return all.filter(\.0).map(\.1)
    }

    private static func usage(_ usage: ExtendedKeyUsage.Usage) -> String {
        switch usage {
        case .serverAuth: return "serverAuth"
        case .clientAuth: return "clientAuth"
        case .codeSigning: return "codeSigning"
        case .emailProtection: return "emailProtection"
        case .timeStamping: return "timeStamping"
        case .ocspSigning: return "OCSPSigning"
        case .any: return "anyExtendedKeyUsage"
        default: return String(describing: usage)
        }
    }
}
