import Foundation
import X509

/// Apple's certificate-transparency policy, checked on a validated path: the leaf's embedded SCTs
/// must include, from logs of the list that were trusted when they signed, at least two valid
/// SCTs (three when the certificate is valid for more than 180 days) from at least two
/// operators, at least one of them from a log still approved today (qualified, usable or
/// read-only: SCTs from retired logs alone do not do). Each SCT's signature is checked over the
/// rebuilt precertificate entry.
public struct CertificateTransparencyPolicy: Sendable, Hashable {
    /// The logs trusted.
    public var logList: CTLogList
    /// Valid SCTs needed for certificates valid for at most 180 days.
    public var minimumSCTs = 2
    /// Valid SCTs needed for certificates valid for longer.
    public var minimumSCTsForLongLifetimes = 3
    /// How many distinct log operators the valid SCTs must come from.
    public var minimumOperators = 2

    /// A policy over `logList`, with Apple's counts.
    public init(logList: CTLogList) { self.logList = logList }

    /// The policy's answer.
    public struct Verdict: Sendable, Hashable {
        /// Whether the certificate passes.
        public var isCompliant: Bool
        /// One sentence: what was found and what was needed.
        public var reason: String
        /// What was decided about each SCT, in order.
        public var timestamps: [String]
    }

    /// Checks the leaf of `path` (leaf first, its issuer second) at `time`.
    public func verdict(on path: [DERCertificate], at time: Date) -> Verdict {
        guard let leaf = path.first else { return Verdict(isCompliant: false, reason: "no certificate", timestamps: []) }
        let lifetime = leaf.certificate.notValidAfter.timeIntervalSince(leaf.certificate.notValidBefore)
        let required = lifetime > 180 * 86_400 ? minimumSCTsForLongLifetimes : minimumSCTs
        let need = "needs \(required) valid SCTs from at least \(minimumOperators) log operators"
        let timestamps: [SignedCertificateTimestamp]
        do {
            timestamps = try SignedCertificateTimestamp.embedded(in: leaf.certificate)
        } catch {
            return Verdict(isCompliant: false, reason: "the leaf's SCTs are unreadable (\(error)); \(need)", timestamps: [])
        }
        guard !timestamps.isEmpty else { return Verdict(isCompliant: false, reason: "the leaf carries no SCTs; \(need)", timestamps: []) }
        guard path.count >= 2 else {
            return Verdict(isCompliant: false, reason: "the leaf's issuer is not in the path, so its SCTs cannot be checked; \(need)", timestamps: [])
        }
        let entry: PrecertificateEntry
        do {
            entry = try PrecertificateEntry(leaf: leaf, issuer: path[1])
        } catch {
            return Verdict(isCompliant: false, reason: "\(error); \(need)", timestamps: [])
        }
        var valid: [CTLog] = []
        var notes: [String] = []
        for sct in timestamps {
            let outcome = check(sct, entry: entry, leaf: leaf, at: time)
            notes.append(outcome.note)
            if let log = outcome.log, !valid.contains(where: { $0.logID == log.logID }) { valid.append(log) }
        }
        let operators = Set(valid.map(\.operatorName))
        let found = "\(valid.count) valid SCT\(valid.count == 1 ? "" : "s") from \(operators.count) operator\(operators.count == 1 ? "" : "s")"
        let compliant = valid.count >= required && operators.count >= minimumOperators
        guard !compliant || valid.contains(where: \.isCurrentlyApproved) else {
            // Apple's and Chrome's policies: at least one SCT must come from a log approved at
            // the time of the check, so that a certificate logged only in logs since retired
            // (whose entries nobody watches any more) does not pass.
            let reason = "\(found), all from retired logs; \(need), one of them from a log still approved (qualified, usable or read-only)"
            return Verdict(isCompliant: false, reason: reason, timestamps: notes)
        }
        return Verdict(isCompliant: compliant, reason: "\(found); \(need)", timestamps: notes)
    }

    /// One SCT: the log that validly signed it, or why it does not count.
    private func check(_ sct: SignedCertificateTimestamp, entry: PrecertificateEntry, leaf: DERCertificate, at time: Date) -> (log: CTLog?, note: String) {
        let id = Data(sct.logID).base64EncodedString()
        guard let log = logList.log(id: sct.logID) else { return (nil, "SCT from unknown log \(id)") }
        let name = "SCT from \(log.description.isEmpty ? id : log.description) (\(log.operatorName))"
        guard log.acceptsSCTs(issuedAt: sct.date) else { return (nil, "\(name): the log was not trusted when it signed (\(log.state))") }
        guard sct.date <= time else { return (nil, "\(name): its timestamp \(sct.date.formatted(.iso8601)) is in the future") }
        if let interval = log.temporalInterval, !interval.contains(leaf.certificate.notValidAfter) {
            return (nil, "\(name): the certificate's expiry is outside the log's temporal interval")
        }
        let algorithm: Certificate.SignatureAlgorithm
        switch (sct.hashAlgorithm, sct.signatureAlgorithm) {
        case (4, 3): algorithm = .ecdsaWithSHA256
        case (4, 1): algorithm = .sha256WithRSAEncryption
        default: return (nil, "\(name): unsupported signature algorithm (hash \(sct.hashAlgorithm), signature \(sct.signatureAlgorithm))")
        }
        let data = entry.signedData(timestamp: sct.timestamp, extensions: sct.extensions)
        guard log.key.isValidSignature(sct.signature, for: data, signatureAlgorithm: algorithm) else {
            return (nil, "\(name): the signature does not verify")
        }
        return (log, "\(name): valid")
    }
}
