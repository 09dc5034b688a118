import Crypto
import Foundation
import SwiftASN1
import X509

/// The few fields of OCSP messages (RFC 6960) that caching and test responders need, read with
/// swift-asn1; swift-certificates' `OCSPVerifierPolicy` does the verification itself.
public enum OCSPMessageSummary {
    /// One certificate an OCSP request asks about.
    public struct CertificateID: Sendable, Hashable {
        /// The `CertID` DER (hash algorithm, issuer name and key hashes, serial number): a
        /// response must repeat it.
        public var derBytes: [UInt8]
        /// The certificate's serial number.
        public var serialNumber: Certificate.SerialNumber
        /// The hash of the issuer's name (SHA-1 or SHA-256 of its DER `Name`, as the `CertID`'s
        /// hash algorithm says).
        public var issuerNameHash: [UInt8]

        /// Whether this `CertID` names `certificate`: the same serial number and a hash of the
        /// same issuer name (RFC 6960 §4.1.1).
        public func names(_ certificate: Certificate) -> Bool {
            guard certificate.serialNumber == serialNumber else { return false }
            var serializer = DER.Serializer()
            guard (try? serializer.serialize(certificate.issuer)) != nil else { return false }
            let name = serializer.serializedBytes
            switch issuerNameHash.count {
            case Insecure.SHA1.byteCount: return Array(Insecure.SHA1.hash(data: name)) == issuerNameHash
            case SHA256.byteCount: return Array(SHA256.hash(data: name)) == issuerNameHash
            default: return false
            }
        }
    }

    /// The `CertID`s an `OCSPRequest` asks about.
    public static func certificateIDs(inRequest bytes: [UInt8]) throws(RevocationError) -> [CertificateID] {
        do {
            let request = try DER.parse(bytes)
            let tbsRequest = try request.child(0)
            // version [0] and requestorName [1] are optional and come before requestList.
            guard case .constructed(let fields) = tbsRequest.content,
                let requestList = fields.first(where: { $0.identifier == .sequence }),
                case .constructed(let requests) = requestList.content
            else { throw RevocationError("no requestList") }
            return try requests.map { single in
                // CertID { hashAlgorithm, issuerNameHash, issuerKeyHash, serialNumber }
                let certID = try single.child(0)
                guard case .constructed(let parts) = certID.content else { throw RevocationError("malformed CertID") }
                let fields = Array(parts)
                guard fields.count == 4, fields[3].identifier == .integer else { throw RevocationError("a CertID without a serial number") }
                return CertificateID(
                    derBytes: Array(certID.encodedBytes),
                    serialNumber: Certificate.SerialNumber(bytes: try ArraySlice<UInt8>(derEncoded: fields[3])),
                    issuerNameHash: Array(try ASN1OctetString(derEncoded: fields[1]).bytes)
                )
            }
        } catch let error as RevocationError {
            throw error
        } catch {
            throw RevocationError("not an OCSP request (\(error))")
        }
    }

    /// What decides how long an OCSP response may be reused.
    public struct ResponseLifetime: Sendable, Hashable {
        /// The earliest `nextUpdate` of the response's single responses (`nil` when one has none).
        public var nextUpdate: Date?
        /// Whether the response carries a nonce (then it answers one request only).
        public var hasNonce: Bool
    }

    /// What a response says about one certificate.
    public enum CertificateStatus: Sendable, Hashable {
        /// `good`: not revoked.
        case good
        /// `revoked`.
        case revoked
        /// `unknown`: the responder does not know the certificate.
        case unknown
    }

    /// One `SingleResponse` of a response.
    public struct SingleResponse: Sendable, Hashable {
        /// The `CertID` DER it answers for.
        public var certificateID: [UInt8]
        /// What it says.
        public var status: CertificateStatus
        /// Its `nextUpdate`, if it has one.
        public var nextUpdate: Date?
    }

    /// The single response for the `CertID` whose DER is `certificateID` in a successful
    /// `OCSPResponse`; `nil` when there is none or the response is not a successful one.
    /// This reads what the response claims; whether it verifies is `OCSPVerifierPolicy`'s
    /// business.
    public static func singleResponse(for certificateID: [UInt8], inResponse bytes: [UInt8]) -> SingleResponse? {
        singleResponses(inResponse: bytes)?.first { $0.certificateID == certificateID }
    }

    /// Every single response of a successful `OCSPResponse`, in order; `nil` when the response is
    /// not a successful one or one of them is malformed.
    public static func singleResponses(inResponse bytes: [UInt8]) -> [SingleResponse]? {
        basicResponseData(bytes).flatMap { singleResponses(in: $0.fields, responsesIndex: $0.responsesIndex) }
    }

    /// The lifetime of a successful `OCSPResponse`; `nil` for any other response.
    public static func lifetime(ofResponse bytes: [UInt8]) -> ResponseLifetime? {
        guard let (fields, responsesIndex) = basicResponseData(bytes),
            let singles = singleResponses(in: fields, responsesIndex: responsesIndex)
        else { return nil }
        var earliest: Date?
        for single in singles {
            guard let date = single.nextUpdate else { return ResponseLifetime(nextUpdate: nil, hasNonce: false) }
            earliest = min(earliest ?? date, date)
        }
        var hasNonce = false
        let nonceOID: ASN1ObjectIdentifier = [1, 3, 6, 1, 5, 5, 7, 48, 1, 2]
        if let extensions = fields.dropFirst(responsesIndex + 1).first, let list = try? extensions.child(0),
            case .constructed(let entries) = list.content
        {
            hasNonce = entries.contains { (try? Certificate.Extension(derEncoded: $0))?.oid == nonceOID }
        }
        return ResponseLifetime(nextUpdate: earliest, hasNonce: hasNonce)
    }

    /// The fields of a successful response's `ResponseData` and the index of its `responses`.
    private static func basicResponseData(_ bytes: [UInt8]) -> (fields: [ASN1Node], responsesIndex: Int)? {
        // OCSPResponse { responseStatus, [0] { responseType, OCTET STRING BasicOCSPResponse } }
        guard let response = try? DER.parse(bytes), let status = try? response.child(0),
            status.encodedBytes.elementsEqual([0x0A, 0x01, 0x00]),  // ENUMERATED successful
            let explicitBytes = try? response.child(1), let responseBytes = try? explicitBytes.child(0),
            let octets = try? responseBytes.child(1), let basicDER = try? ASN1OctetString(derEncoded: octets),
            let basic = try? DER.parse(Array(basicDER.bytes)), let data = try? basic.child(0),
            case .constructed(let children) = data.content
        else { return nil }
        // ResponseData { [0] version?, responderID, producedAt, responses, [1] responseExtensions? }:
        // the one universal SEQUENCE is `responses`; the extensions follow it.
        let fields = Array(children)
        guard let responsesIndex = fields.firstIndex(where: { $0.identifier == .sequence }) else { return nil }
        return (fields, responsesIndex)
    }

    /// The single responses of `responses`; `nil` when one is malformed.
    private static func singleResponses(in fields: [ASN1Node], responsesIndex: Int) -> [SingleResponse]? {
        guard case .constructed(let singles) = fields[responsesIndex].content else { return nil }
        var result: [SingleResponse] = []
        for single in singles {
            // SingleResponse { certID, certStatus, thisUpdate, [0] EXPLICIT nextUpdate?, [1] extensions? }
            // certStatus: good [0] IMPLICIT NULL, revoked [1] IMPLICIT RevokedInfo, unknown [2] IMPLICIT NULL.
            guard case .constructed(let nodes) = single.content else { return nil }
            let parts = Array(nodes)
            guard parts.count >= 3, parts[1].identifier.tagClass == .contextSpecific,
                let thisUpdate = parts.firstIndex(where: X509Time.isTime)
            else { return nil }
            let status: CertificateStatus
            switch parts[1].identifier.tagNumber {
            case 0: status = .good
            case 1: status = .revoked
            case 2: status = .unknown
            default: return nil
            }
            var nextUpdate: Date?
            if let after = parts.dropFirst(thisUpdate + 1).first,
                after.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
                let time = try? after.child(0)
            {
                nextUpdate = try? X509Time.date(time)
            }
            result.append(SingleResponse(certificateID: Array(parts[0].encodedBytes), status: status, nextUpdate: nextUpdate))
        }
        return result
    }
}
