import Foundation

extension TrustDecision: Encodable {
    private enum CodingKeys: String, CodingKey {
        case trusted, decidedBy, rule, reason, checks, pinMismatch, reusableUntil, provisional
    }

    /// Encodes `trusted`, `decidedBy`, `rule`, `reason`, `checks` and `pinMismatch`; then
    /// `reusableUntil` (ISO 8601) when set and `provisional: true` when the decision is
    /// provisional.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(isTrusted, forKey: .trusted)
        try container.encode(decidedBy, forKey: .decidedBy)
        try container.encodeIfPresent(rule?.rawValue, forKey: .rule)
        try container.encode(reason, forKey: .reason)
        try container.encode(checks, forKey: .checks)
        try container.encodeIfPresent(pinMismatch, forKey: .pinMismatch)
        try container.encodeIfPresent(reusableUntil?.formatted(.iso8601), forKey: .reusableUntil)
        if isProvisional { try container.encode(true, forKey: .provisional) }
    }
}

extension TrustCheck: Encodable {
    private enum CodingKeys: String, CodingKey { case name, passed, detail, evaluation }

    /// Encodes `name`, `passed`, `detail` and the `evaluation` behind the check.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(passed, forKey: .passed)
        try container.encode(detail, forKey: .detail)
        try container.encodeIfPresent(evaluation, forKey: .evaluation)
    }
}

extension TrustEvaluation: Encodable {
    private enum CodingKeys: String, CodingKey { case outcome, policy, evaluationTime, anchors, path, failures }

    private struct PathEntry: Encodable {
        let subject: String
        let issuer: String
        let spkiPin: SPKIPin
        let sha256Fingerprint: String
    }

    /// Encodes the outcome, policy, time, anchors, the validated path and the failures.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(policy.description, forKey: .policy)
        try container.encode(evaluationTime.formatted(.iso8601), forKey: .evaluationTime)
        try container.encode(anchors, forKey: .anchors)
        try container.encode(
            path.map {
                PathEntry(subject: $0.subjectSummary, issuer: $0.issuerSummary, spkiPin: $0.spkiPin, sha256Fingerprint: $0.sha256Fingerprint.hexString)
            },
            forKey: .path
        )
        try container.encode(failures, forKey: .failures)
    }
}

extension PinMismatch: Encodable {
    private enum CodingKeys: String, CodingKey { case mode, host, presented, expected }

    /// Encodes the mode, host, the certificates presented and the pins expected.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mode, forKey: .mode)
        try container.encodeIfPresent(host, forKey: .host)
        try container.encode(presented, forKey: .presented)
        try container.encode(expected, forKey: .expected)
    }
}
