import Crypto
import Foundation
import X509

/// A certificate-transparency log as a log list describes it.
public struct CTLog: Sendable, Hashable {
    /// A log's state in the log list (Chrome's and Apple's lists use the same names).
    public enum State: Sendable, Hashable {
        /// Not yet trusted: its SCTs do not count.
        case pending
        /// Trusted for new SCTs.
        case qualified
        /// Trusted for new SCTs.
        case usable
        /// No longer accepting certificates; its SCTs still count.
        case readonly
        /// Retired at this moment: only SCTs from before it count.
        case retired(Date)
        /// Never trusted.
        case rejected
    }

    /// What the list says about it.
    public var description: String
    /// SHA-256 of ``key``.
    public var logID: [UInt8]
    /// The log's public key (P-256 ECDSA or RSA).
    public var key: Certificate.PublicKey
    /// The operator's name; SCTs must come from different operators.
    public var operatorName: String
    /// The log's state.
    public var state: State
    /// Certificates whose `notAfter` falls in this interval (start inclusive, end exclusive) may
    /// be logged here; `nil` for any.
    public var temporalInterval: Range<Date>?

    /// Makes a log entry; the ID is the SHA-256 of the key's SubjectPublicKeyInfo.
    public init(description: String, key: Certificate.PublicKey, operatorName: String, state: State, temporalInterval: Range<Date>? = nil) {
        self.description = description
        self.key = key
        self.logID = Array(SHA256.hash(data: key.subjectPublicKeyInfoDER))
        self.operatorName = operatorName
        self.state = state
        self.temporalInterval = temporalInterval
    }

    /// Whether the log is approved now (qualified, usable or read-only), as opposed to retired:
    /// a compliant certificate needs at least one valid SCT from such a log.
    public var isCurrentlyApproved: Bool {
        switch state {
        case .qualified, .usable, .readonly: return true
        case .retired, .pending, .rejected: return false
        }
    }

    /// Whether an SCT this log issued at `time` counts.
    func acceptsSCTs(issuedAt time: Date) -> Bool {
        if case .retired(let retirement) = state { return time < retirement }
        return isCurrentlyApproved
    }
}

/// The logs a client trusts, read from a log list in the common JSON format (Chrome's and
/// Apple's `log_list.json`, version 3): operators, each with logs (`log_id`, `key`,
/// `description`, `state`, `temporal_interval`).
public struct CTLogList: Sendable, Hashable {
    /// The logs, from every operator.
    public var logs: [CTLog]

    /// A list of these logs.
    public init(logs: [CTLog]) { self.logs = logs }

    /// The log with this ID.
    public func log(id: [UInt8]) -> CTLog? { logs.first { $0.logID == id } }

    /// Parses a log list.
    /// - Throws: ``CertificateTransparencyError`` naming the log and the field that is wrong
    ///   (a key that is not a P-256 or RSA SubjectPublicKeyInfo, a `log_id` that is not its hash, a
    ///   malformed time).
    public init(json: Data) throws(CertificateTransparencyError) {
        let wire: Wire
        do { wire = try JSONDecoder().decode(Wire.self, from: json) } catch {
            throw CertificateTransparencyError("not a log list: \(DecodingErrorText.describe(error, document: "the log list", json: json))")
        }
        var logs: [CTLog] = []
        for (operatorIndex, logOperator) in wire.operators.enumerated() {
            for (logIndex, log) in (logOperator.logs ?? []).enumerated() {
                let place = "operators[\(operatorIndex)].logs[\(logIndex)] (\(log.description ?? "no description"))"
                guard let keyBytes = Data(base64Encoded: log.key), let key = try? Certificate.PublicKey(derEncoded: Array(keyBytes)) else {
                    throw CertificateTransparencyError("\(place): key is not a base64 SubjectPublicKeyInfo")
                }
                var entry = CTLog(description: log.description ?? "", key: key, operatorName: logOperator.name, state: try Self.state(log.state, place))
                guard Data(base64Encoded: log.log_id).map(Array.init) == entry.logID else {
                    throw CertificateTransparencyError("\(place): log_id is not the SHA-256 of the key")
                }
                if let interval = log.temporal_interval {
                    let start = try Self.date(interval.start_inclusive, "\(place).temporal_interval.start_inclusive")
                    let end = try Self.date(interval.end_exclusive, "\(place).temporal_interval.end_exclusive")
                    guard start < end else { throw CertificateTransparencyError("\(place): temporal_interval ends before it starts") }
                    entry.temporalInterval = start..<end
                }
                logs.append(entry)
            }
        }
        self.logs = logs
    }

    private struct Wire: Decodable {
        struct Operator: Decodable {
            var name: String
            var logs: [Log]?
        }

        struct Log: Decodable {
            var description: String?
            var log_id: String
            var key: String
            var state: [String: StateTime]?
            var temporal_interval: Interval?
        }

        struct StateTime: Decodable { var timestamp: String? }
        struct Interval: Decodable {
            var start_inclusive: String
            var end_exclusive: String
        }

        var operators: [Operator]
    }

    private static func state(_ state: [String: Wire.StateTime]?, _ place: String) throws(CertificateTransparencyError) -> CTLog.State {
        guard let (name, time) = state?.first, state?.count == 1 else {
            throw CertificateTransparencyError("\(place): state must name exactly one state")
        }
        switch name {
        case "pending": return .pending
        case "qualified": return .qualified
        case "usable": return .usable
        case "readonly": return .readonly
        case "rejected": return .rejected
        case "retired":
            guard let timestamp = time.timestamp else { throw CertificateTransparencyError("\(place): a retired log needs its retirement timestamp") }
            return .retired(try date(timestamp, "\(place).state.retired.timestamp"))
        default: throw CertificateTransparencyError("\(place): unknown state \"\(name)\"")
        }
    }

    private static func date(_ text: String, _ place: String) throws(CertificateTransparencyError) -> Date {
        guard let parsed = Date(iso8601: text) else { throw CertificateTransparencyError("\(place): \"\(text)\" is not an ISO 8601 time") }
        return parsed
    }
}
