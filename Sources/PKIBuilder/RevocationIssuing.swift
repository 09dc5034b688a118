import Crypto
import Foundation
import SwiftASN1
import TransportSecurity
import X509

/// What an OCSP responder made by the tests says about a certificate.
public enum OCSPTestStatus: Sendable, Hashable {
    /// Not revoked.
    case good
    /// Revoked at this moment.
    case revoked(Date)
    /// The responder does not know the certificate.
    case unknown
}

extension IssuedCertificate {
    /// A CRL signed by this CA: version 2, revoking `revoked` (at `thisUpdate`, each entry with
    /// `entryExtensions`), valid from `thisUpdate` to `nextUpdate`, with the CRL number
    /// `crlNumber` (none when `nil`; marked critical, against RFC 5280, when
    /// `crlNumberIsCritical`) and then `extensions` (an issuing distribution point's
    /// `IssuingDistributionPoint.certificateExtension`, for a sharded list). DER.
    public func revocationList(
        revoking revoked: [IssuedCertificate],
        thisUpdate: Date,
        nextUpdate: Date?,
        crlNumber: Int? = 1,
        crlNumberIsCritical: Bool = false,
        extensions: [Certificate.Extension] = [],
        entryExtensions: [Certificate.Extension] = []
    ) throws -> [UInt8] {
        var tbs = DER.Serializer()
        try tbs.appendConstructedNode(identifier: .sequence) { fields in
            try fields.serialize(1)  // v2
            try serializeSignatureAlgorithm(into: &fields)
            try fields.serialize(certificate.subject)
            try X509Time.serialize(thisUpdate, into: &fields)
            if let nextUpdate { try X509Time.serialize(nextUpdate, into: &fields) }
            if !revoked.isEmpty {
                try fields.appendConstructedNode(identifier: .sequence) { list in
                    for entry in revoked {
                        try list.appendConstructedNode(identifier: .sequence) { item in
                            try item.serialize(ArraySlice(entry.certificate.serialNumber.bytes))
                            try X509Time.serialize(thisUpdate, into: &item)
                            if !entryExtensions.isEmpty {
                                try item.appendConstructedNode(identifier: .sequence) { list in
                                    for entryExtension in entryExtensions { try list.serialize(entryExtension) }
                                }
                            }
                        }
                    }
                }
            }
            var listExtensions = extensions
            if let crlNumber {
                var number = DER.Serializer()
                try number.serialize(crlNumber)
                let crlNumberExtension = Certificate.Extension(oid: [2, 5, 29, 20], critical: crlNumberIsCritical, value: ArraySlice(number.serializedBytes))
                listExtensions.insert(crlNumberExtension, at: 0)
            }
            if !listExtensions.isEmpty {
                try fields.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { wrapper in
                    try wrapper.appendConstructedNode(identifier: .sequence) { list in
                        for listExtension in listExtensions { try list.serialize(listExtension) }
                    }
                }
            }
        }
        return try signed(tbs.serializedBytes)
    }

    /// A DER `OCSPResponse` from this CA (as its own responder) answering every certificate an
    /// `OCSPRequest` asks about with `status(serialNumber)`, produced at `now`, valid until
    /// `nextUpdate` (none when `nil`). No nonce: like the pre-signed responses of real
    /// responders, it may be cached.
    public func ocspResponse(
        to request: [UInt8],
        at now: Date,
        nextUpdate: Date?,
        status: (Certificate.SerialNumber) -> OCSPTestStatus
    ) throws -> [UInt8] {
        let ids = try OCSPMessageSummary.certificateIDs(inRequest: request)
        var data = DER.Serializer()
        try data.appendConstructedNode(identifier: .sequence) { fields in
            try fields.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)) { responder in
                try responder.serialize(certificate.subject)  // responderID byName
            }
            try fields.serialize(X509Time.generalizedTime(now))
            try fields.appendConstructedNode(identifier: .sequence) { responses in
                for id in ids {
                    try responses.appendConstructedNode(identifier: .sequence) { single in
                        single.serializeRawBytes(id.derBytes)
                        switch status(id.serialNumber) {
                        case .good:
                            single.appendPrimitiveNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { _ in }
                        case .revoked(let date):
                            try single.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)) { revoked in
                                try revoked.serialize(X509Time.generalizedTime(date))
                            }
                        case .unknown:
                            single.appendPrimitiveNode(identifier: ASN1Identifier(tagWithNumber: 2, tagClass: .contextSpecific)) { _ in }
                        }
                        try single.serialize(X509Time.generalizedTime(now))
                        if let nextUpdate {
                            try single.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { next in
                                try next.serialize(X509Time.generalizedTime(nextUpdate))
                            }
                        }
                    }
                }
            }
        }
        let basic = try signed(data.serializedBytes)
        var response = DER.Serializer()
        try response.appendConstructedNode(identifier: .sequence) { fields in
            fields.appendPrimitiveNode(identifier: .enumerated) { $0.append(0) }  // successful
            try fields.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { explicit in
                try explicit.appendConstructedNode(identifier: .sequence) { bytes in
                    let basicType: ASN1ObjectIdentifier = [1, 3, 6, 1, 5, 5, 7, 48, 1, 1]  // id-pkix-ocsp-basic
                    try bytes.serialize(basicType)
                    try bytes.serialize(ASN1OctetString(contentBytes: basic[...]))
                }
            }
        }
        return response.serializedBytes
    }

    /// `SEQUENCE { tbs, signatureAlgorithm, BIT STRING signature }`, signed with this CA's key.
    private func signed(_ tbs: [UInt8]) throws -> [UInt8] {
        let signature = try keyPair.privateKey.sign(bytes: tbs, signatureAlgorithm: keyPair.algorithm.defaultSignatureAlgorithm)
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { fields in
            fields.serializeRawBytes(tbs)
            try serializeSignatureAlgorithm(into: &fields)
            try fields.serialize(ASN1BitString(bytes: signature.rawRepresentation[...]))
        }
        return serializer.serializedBytes
    }

    /// The AlgorithmIdentifier of this CA's signatures (NULL parameters for RSA, none otherwise).
    private func serializeSignatureAlgorithm(into serializer: inout DER.Serializer) throws {
        let oid: ASN1ObjectIdentifier
        switch keyPair.algorithm {
        case .p256: oid = [1, 2, 840, 10045, 4, 3, 2]
        case .p384: oid = [1, 2, 840, 10045, 4, 3, 3]
        case .p521: oid = [1, 2, 840, 10045, 4, 3, 4]
        case .rsa2048: oid = [1, 2, 840, 113549, 1, 1, 11]
        case .ed25519: oid = [1, 3, 101, 112]
        }
        try serializer.appendConstructedNode(identifier: .sequence) { algorithm in
            try algorithm.serialize(oid)
            if keyPair.algorithm == .rsa2048 { try algorithm.serialize(ASN1Null()) }
        }
    }
}

extension IssuingDistributionPoint {
    /// The extension a CRL carries for this scope (critical, as RFC 5280 §5.2.5 requires);
    /// a point named relative to its issuer is written as `CN=shard`.
    public var certificateExtension: Certificate.Extension {
        get throws {
            var value = DER.Serializer()
            try value.appendConstructedNode(identifier: .sequence) { fields in
                if let fullName {
                    try fields.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { point in
                        try point.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { names in
                            for name in fullName { try names.serialize(name) }
                        }
                    }
                } else if isNamedRelativeToIssuer {
                    try fields.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { point in
                        let attribute = RelativeDistinguishedName.Attribute(type: .RDNAttributeType.commonName, utf8String: "shard")
                        try point.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)) { relative in
                            try relative.serialize(attribute)
                        }
                    }
                }
                for (tag, isSet) in [(1, onlyContainsUserCertificates), (2, onlyContainsCACertificates)] where isSet {
                    try true.serialize(into: &fields, withIdentifier: ASN1Identifier(tagWithNumber: UInt(tag), tagClass: .contextSpecific))
                }
                if coversSomeReasonsOnly {
                    // keyCompromise only (bit 1).
                    try ASN1BitString(bytes: [0x40], paddingBits: 6).serialize(into: &fields, withIdentifier: ASN1Identifier(tagWithNumber: 3, tagClass: .contextSpecific))
                }
                for (tag, isSet) in [(4, isIndirect), (5, onlyContainsAttributeCertificates)] where isSet {
                    try true.serialize(into: &fields, withIdentifier: ASN1Identifier(tagWithNumber: UInt(tag), tagClass: .contextSpecific))
                }
            }
            return Certificate.Extension(oid: Self.oid, critical: true, value: ArraySlice(value.serializedBytes))
        }
    }
}
