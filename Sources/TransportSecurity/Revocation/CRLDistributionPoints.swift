import SwiftASN1
import X509

/// One entry of a certificate's CRL distribution points extension (RFC 5280 §4.2.1.13): where
/// a CRL covering the certificate is published.
struct CRLDistributionPoint: Sendable, Hashable {
    /// The point's full name (usually one URI); `nil` when the entry has none, or names the
    /// point relative to the CRL issuer.
    var fullName: [GeneralName]?
    /// Whether the entry lists the revocation reasons its CRL covers: such a CRL covers only
    /// those, and says nothing of a certificate revoked for another reason.
    var coversSomeReasonsOnly: Bool
    /// The names of the CRL's issuer, when it is not the certificate's issuer (indirect CRLs).
    var crlIssuer: [GeneralName]?

    /// The names a CRL's issuing distribution point is compared with (RFC 5280 §6.3.3 b 2 i):
    /// the point's full name, or, for an entry without one, its CRL issuer's names.
    var names: [GeneralName] { fullName ?? crlIssuer ?? [] }
}

extension Certificate {
    /// The CRL distribution points extension (`2.5.29.31`).
    static let crlDistributionPointsOID: ASN1ObjectIdentifier = [2, 5, 29, 31]

    /// The certificate's CRL distribution points; empty when it has none, or when the extension
    /// does not parse (the certificate then names no list, which is what the caller sees).
    var crlDistributionPoints: [CRLDistributionPoint] {
        guard let value = extensions[oid: Self.crlDistributionPointsOID]?.value, let root = try? DER.parse(Array(value)),
            case .constructed(let points) = root.content
        else { return [] }
        return points.compactMap { try? CRLDistributionPoint(derEncoded: $0) }
    }

    /// The URIs of the certificate's CRL distribution points (full names only).
    var crlDistributionPointURLs: [String] {
        crlDistributionPoints.flatMap { $0.fullName ?? [] }.compactMap {
            if case .uniformResourceIdentifier(let uri) = $0 { uri } else { nil }
        }
    }
}

extension CRLDistributionPoint {
    /// `DistributionPoint ::= SEQUENCE { distributionPoint [0] DistributionPointName OPTIONAL,
    /// reasons [1] ReasonFlags OPTIONAL, cRLIssuer [2] GeneralNames OPTIONAL }`.
    init(derEncoded node: ASN1Node) throws {
        guard case .constructed(let fields) = node.content else { throw RevocationError("a distribution point is not a SEQUENCE") }
        fullName = nil
        coversSomeReasonsOnly = false
        crlIssuer = nil
        for field in fields {
            switch field.identifier {
            case ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific):
                fullName = try DistributionPointName.fullName(in: field)
            case ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific):
                coversSomeReasonsOnly = true
            case ASN1Identifier(tagWithNumber: 2, tagClass: .contextSpecific):
                crlIssuer = try DistributionPointName.generalNames(in: field)
            default:
                throw RevocationError("a distribution point has an unknown field")
            }
        }
    }
}

/// `DistributionPointName ::= CHOICE { fullName [0] GeneralNames, nameRelativeToCRLIssuer [1]
/// RelativeDistinguishedName }`, as both the CRL distribution points and the issuing
/// distribution point extensions write it, inside an explicit `[0]`.
enum DistributionPointName {
    /// The full name inside a `[0] DistributionPointName`; `nil` for a name relative to the
    /// CRL issuer.
    static func fullName(in wrapper: ASN1Node) throws -> [GeneralName]? {
        let choice = try wrapper.child(0)
        guard choice.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) else { return nil }
        return try generalNames(in: choice)
    }

    /// The `GeneralName`s of an implicitly tagged `GeneralNames`.
    static func generalNames(in node: ASN1Node) throws -> [GeneralName] {
        guard case .constructed(let names) = node.content else { throw RevocationError("GeneralNames is not constructed") }
        let parsed = try names.map { try GeneralName(derEncoded: $0) }
        guard !parsed.isEmpty else { throw RevocationError("GeneralNames is empty") }
        return parsed
    }
}
