import SwiftASN1
import X509

extension CertificateProfile {
    /// The profile with revocation pointers: an authority-information-access OCSP URI and a
    /// CRL distribution point (`2.5.29.31`, one full-name URI), each when given.
    public func pointingTo(ocsp: String? = nil, crl: String? = nil) -> CertificateProfile {
        var profile = self
        let previous = editExtensions
        profile.editExtensions = { extensions in
            try previous?(&extensions)
            if let ocsp {
                let access = AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier(ocsp))])
                try extensions.append(Certificate.Extension(access, critical: false))
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
