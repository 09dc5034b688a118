import SwiftASN1
import X509

extension CertificateProfile {
    /// The profile with pointers to its issuer's services: an authority-information-access
    /// OCSP URI and `caIssuers` URIs (where the issuer's certificate is published), and a CRL
    /// distribution point (`2.5.29.31`, one full-name URI), each when given.
    public func pointingTo(ocsp: String? = nil, crl: String? = nil, caIssuers: [String] = []) -> CertificateProfile {
        var profile = self
        let previous = editExtensions
        profile.editExtensions = { extensions in
            try previous?(&extensions)
            let descriptions = (ocsp.map { [AuthorityInformationAccess.AccessDescription(method: .ocspServer, location: .uniformResourceIdentifier($0))] } ?? [])
                + caIssuers.map { AuthorityInformationAccess.AccessDescription(method: .issuingCA, location: .uniformResourceIdentifier($0)) }
            if !descriptions.isEmpty {
                try extensions.append(Certificate.Extension(AuthorityInformationAccess(descriptions), critical: false))
            }
            if let crl {
                var serializer = DER.Serializer()
                // SEQUENCE { DistributionPoint { [0] { [0] { [6] URI } } } }
                serializer.appendConstructedNode(identifier: .sequence) { points in
                    points.appendConstructedNode(identifier: .sequence) { point in
                        point.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { name in
                            name.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { fullName in
                                fullName.appendPrimitiveNode(identifier: ASN1Identifier(tagWithNumber: 6, tagClass: .contextSpecific)) { $0.append(contentsOf: crl.utf8) }
                            }
                        }
                    }
                }
                try extensions.append(Certificate.Extension(oid: [2, 5, 29, 31], critical: false, value: serializer.serializedBytes[...]))
            }
        }
        return profile
    }
}
