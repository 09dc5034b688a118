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
                let certID = try single.child(0)
                guard case .constructed(let parts) = certID.content else { throw RevocationError("malformed CertID") }
                let serial = Array(parts).last
                guard let serial, serial.identifier == .integer else { throw RevocationError("a CertID without a serial number") }
                return CertificateID(derBytes: Array(certID.encodedBytes), serialNumber: Certificate.SerialNumber(bytes: try ArraySlice<UInt8>(derEncoded: serial)))
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

    /// The lifetime of a successful `OCSPResponse`; `nil` for any other response.
    public static func lifetime(ofResponse bytes: [UInt8]) -> ResponseLifetime? {
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
        guard let responsesIndex = fields.firstIndex(where: { $0.identifier == .sequence }),
            case .constructed(let singles) = fields[responsesIndex].content
        else { return nil }
        var earliest: Date?
        for single in singles {
            // SingleResponse { certID, certStatus, thisUpdate, [0] EXPLICIT nextUpdate?, [1] extensions? }
            guard case .constructed(let parts) = single.content,
                let thisUpdate = Array(parts).firstIndex(where: X509Time.isTime)
            else { return nil }
            let after = Array(parts).dropFirst(thisUpdate + 1).first
            guard let after, after.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
                let time = try? after.child(0), let date = try? X509Time.date(time)
            else { return ResponseLifetime(nextUpdate: nil, hasNonce: false) }
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
}
