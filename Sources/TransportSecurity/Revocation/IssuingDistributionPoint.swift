import SwiftASN1
import X509

/// A CRL's issuing distribution point extension (RFC 5280 §5.2.5, `2.5.29.28`, always
/// critical): which of its issuer's certificates the list covers. CAs that publish their
/// revocations in several lists ("sharded" CRLs, as Let's Encrypt does) name each list's
/// distribution point here, and a list answers only for the certificates that point to it.
public struct IssuingDistributionPoint: Sendable, Hashable {
    /// The extension's identifier, 2.5.29.28.
    public static let oid: ASN1ObjectIdentifier = [2, 5, 29, 28]

    /// The list's distribution point, as a full name (usually one URI); `nil` when absent.
    public var fullName: [GeneralName]?
    /// Whether the point is named relative to the CRL issuer (`nameRelativeToCRLIssuer`), which
    /// this library does not read: such a list answers for no certificate.
    public var isNamedRelativeToIssuer: Bool
    /// `onlyContainsUserCerts`: the list covers end-entity certificates only.
    public var onlyContainsUserCertificates: Bool
    /// `onlyContainsCACerts`: the list covers CA certificates only.
    public var onlyContainsCACertificates: Bool
    /// Whether `onlySomeReasons` is present: the list covers only some revocation reasons.
    public var coversSomeReasonsOnly: Bool
    /// `indirectCRL`: the list may name other issuers' certificates.
    public var isIndirect: Bool
    /// `onlyContainsAttributeCerts`: the list covers attribute certificates only.
    public var onlyContainsAttributeCertificates: Bool

    /// An issuing distribution point; every flag false by default, as RFC 5280's defaults are.
    public init(
        fullName: [GeneralName]? = nil,
        isNamedRelativeToIssuer: Bool = false,
        onlyContainsUserCertificates: Bool = false,
        onlyContainsCACertificates: Bool = false,
        coversSomeReasonsOnly: Bool = false,
        isIndirect: Bool = false,
        onlyContainsAttributeCertificates: Bool = false
    ) {
        self.fullName = fullName
        self.isNamedRelativeToIssuer = isNamedRelativeToIssuer
        self.onlyContainsUserCertificates = onlyContainsUserCertificates
        self.onlyContainsCACertificates = onlyContainsCACertificates
        self.coversSomeReasonsOnly = coversSomeReasonsOnly
        self.isIndirect = isIndirect
        self.onlyContainsAttributeCertificates = onlyContainsAttributeCertificates
    }

    /// Reads the extension's value: `SEQUENCE { distributionPoint [0], onlyContainsUserCerts
    /// [1] BOOLEAN, onlyContainsCACerts [2] BOOLEAN, onlySomeReasons [3] ReasonFlags,
    /// indirectCRL [4] BOOLEAN, onlyContainsAttributeCerts [5] BOOLEAN }`, fields in that order.
    /// - Throws: ``RevocationError`` when the value does not have that shape.
    public init(derEncoded bytes: ArraySlice<UInt8>) throws(RevocationError) {
        self.init()
        do {
            guard case .constructed(let fields) = try DER.parse(bytes).content else {
                throw RevocationError("the issuing distribution point is not a SEQUENCE")
            }
            var lastTag = -1
            for field in fields {
                let tag = Int(field.identifier.tagNumber)
                guard field.identifier.tagClass == .contextSpecific, tag > lastTag, tag <= 5 else {
                    throw RevocationError("the issuing distribution point has an unknown or repeated field")
                }
                lastTag = tag
                func flag() throws -> Bool { try Bool(derEncoded: field, withIdentifier: field.identifier) }
                switch tag {
                case 0:
                    fullName = try DistributionPointName.fullName(in: field)
                    isNamedRelativeToIssuer = fullName == nil
                case 1: onlyContainsUserCertificates = try flag()
                case 2: onlyContainsCACertificates = try flag()
                case 3: coversSomeReasonsOnly = true
                case 4: isIndirect = try flag()
                default: onlyContainsAttributeCertificates = try flag()
                }
            }
        } catch let error as RevocationError {
            throw error
        } catch {
            throw RevocationError("malformed issuing distribution point (\(error))")
        }
    }

    /// Why a list with this issuing distribution point cannot say whether `certificate` (issued
    /// by the list's issuer) is revoked; `nil` when the certificate is in the list's scope
    /// (RFC 5280 §6.3.3 b).
    public func scopeProblem(for certificate: Certificate) -> String? {
        if isIndirect { return "it is an indirect CRL (it may list other issuers' certificates), which is not supported" }
        if onlyContainsAttributeCertificates { return "it lists attribute certificates only" }
        if coversSomeReasonsOnly { return "it covers only some revocation reasons (onlySomeReasons), so it cannot say a certificate is not revoked" }
        if isNamedRelativeToIssuer { return "it names its distribution point relative to its issuer, which is not supported" }
        let isAuthority = if case .isCertificateAuthority? = try? certificate.extensions.basicConstraints { true } else { false }
        if onlyContainsUserCertificates, isAuthority { return "it lists end-entity certificates only, and this one is a CA" }
        if onlyContainsCACertificates, !isAuthority { return "it lists CA certificates only, and this one is not a CA" }
        guard let fullName else { return nil }
        let points = certificate.crlDistributionPoints
        let matching = points.filter { !Set($0.names).isDisjoint(with: fullName) }
        let listName = fullName.map(Self.text).joined(separator: ", ")
        guard !matching.isEmpty else {
            let certificateNames = points.flatMap(\.names).map(Self.text)
            let named = certificateNames.isEmpty ? "the certificate names no distribution point" : "the certificate's are \(certificateNames.joined(separator: ", "))"
            return "it is the list of the distribution point \(listName), which is not one of the certificate's (\(named))"
        }
        guard matching.contains(where: { !$0.coversSomeReasonsOnly }) else {
            return "the certificate's distribution point \(listName) covers only some revocation reasons"
        }
        return nil
    }

    /// A distribution point's name as people write it: a URI as it is, other names as
    /// swift-certificates describes them.
    private static func text(_ name: GeneralName) -> String {
        if case .uniformResourceIdentifier(let uri) = name { uri } else { name.description }
    }
}
