import SwiftASN1
import X509

extension Certificate {
    /// The CRL distribution points extension (`2.5.29.31`).
    static let crlDistributionPointsOID: ASN1ObjectIdentifier = [2, 5, 29, 31]

    /// The URIs of the certificate's CRL distribution points (full names only).
    var crlDistributionPointURLs: [String] {
        guard let value = extensions[oid: Self.crlDistributionPointsOID]?.value, let root = try? DER.parse(Array(value)),
            case .constructed(let points) = root.content
        else { return [] }
        var urls: [String] = []
        let uriTag = ASN1Identifier(tagWithNumber: 6, tagClass: .contextSpecific)
        for point in points {
            // DistributionPoint { [0] distributionPoint { [0] fullName GeneralNames } }
            guard let name = try? point.child(0),
                name.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
                let fullName = try? name.child(0),
                case .constructed(let generalNames) = fullName.content
            else { continue }
            for generalName in generalNames where generalName.identifier == uriTag {
                if case .primitive(let bytes) = generalName.content { urls.append(String(decoding: bytes, as: UTF8.self)) }
            }
        }
        return urls
    }
}
