import Crypto
import Foundation
import SwiftASN1
import TransportSecurity
import X509

/// A certificate-transparency log made at run time: a P-256 key that signs SCTs, for tests and
/// demos of `CertificateTransparencyPolicy`. It logs nothing anywhere; it only signs.
public struct TestCTLog: Sendable {
    /// The log's description.
    public let name: String
    /// The operator's name.
    public let operatorName: String
    /// The signing key.
    public let key: P256.Signing.PrivateKey

    /// A log with a fresh key.
    public init(name: String, operatorName: String) {
        self.name = name
        self.operatorName = operatorName
        self.key = P256.Signing.PrivateKey()
    }

    /// The public key, as a log list gives it.
    public var publicKey: Certificate.PublicKey { Certificate.PublicKey(key.publicKey) }

    /// The log as a log list describes it.
    public func entry(state: CTLog.State = .usable, temporalInterval: Range<Date>? = nil) -> CTLog {
        CTLog(description: name, key: publicKey, operatorName: operatorName, state: state, temporalInterval: temporalInterval)
    }

    /// An SCT for `entry` at `date`, signed with ECDSA P-256 / SHA-256.
    public func timestamp(for entry: PrecertificateEntry, at date: Date) throws -> SignedCertificateTimestamp {
        let milliseconds = UInt64(date.timeIntervalSince1970 * 1000)
        let signature = try key.signature(for: entry.signedData(timestamp: milliseconds, extensions: []))
        return SignedCertificateTimestamp(
            logID: Array(SHA256.hash(data: publicKey.subjectPublicKeyInfoDER)),
            timestamp: milliseconds,
            signatureAlgorithm: 3,
            signature: Array(signature.derRepresentation)
        )
    }

    /// A log list in the common JSON format (version 3) holding these logs, grouped by operator;
    /// `state` is written as `{"usable": {"timestamp": …}}` and so on.
    public static func logListJSON(_ logs: [(log: TestCTLog, state: String, timestamp: Date)]) -> Data {
        var operators: [String: [[String: Any]]] = [:]
        for (log, state, timestamp) in logs {
            let key = log.publicKey.subjectPublicKeyInfoDER
            operators[log.operatorName, default: []].append([
                "description": log.name,
                "log_id": Data(SHA256.hash(data: key)).base64EncodedString(),
                "key": Data(key).base64EncodedString(),
                "url": "https://ct.example/\(log.name)/",
                "mmd": 86_400,
                "state": [state: ["timestamp": timestamp.formatted(.iso8601)]],
            ])
        }
        let document: [String: Any] = [
            "version": "1.0",
            "operators": operators.sorted { $0.key < $1.key }.map { ["name": $0.key, "email": [], "logs": $0.value] },
        ]
        return (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])) ?? Data()
    }
}

extension PKI {
    /// Issues a certificate with SCTs from `logs` embedded (the SCT-list extension), each signed at
    /// `time` over the precertificate entry, as a CA does after logging the precertificate.
    public func issue(
        _ profile: CertificateProfile,
        by issuer: IssuedCertificate,
        loggedBy logs: [TestCTLog],
        at time: Date? = nil
    ) throws -> IssuedCertificate {
        // The certificate without SCTs: the precertificate's TBS, same serial and key.
        let plain = try issue(profile, by: issuer)
        let entry = try PrecertificateEntry(leaf: plain.der, issuer: issuer.der)
        let timestamps = try logs.map { try $0.timestamp(for: entry, at: time ?? now) }
        var logged = profile
        logged.serialNumberBytes = Array(plain.certificate.serialNumber.bytes)
        let previous = profile.editExtensions
        logged.editExtensions = { extensions in
            try previous?(&extensions)
            var serializer = DER.Serializer()
            try serializer.serialize(ASN1OctetString(contentBytes: SignedCertificateTimestamp.serializedList(timestamps)[...]))
            try extensions.append(Certificate.Extension(oid: SignedCertificateTimestamp.listExtensionOID, critical: false, value: serializer.serializedBytes[...]))
        }
        return try issue(logged, by: issuer, key: plain.keyPair)
    }
}
