import Foundation
import SecureSession
import TransportSecurity

/// `tsec get --json` when no response came (or `-f` refused its status): what failed, in a form
/// a script reads instead of parsing the sentence on stderr.
struct GetFailureReport: Encodable {
    /// The kind of failure, as the session's metrics name it (`trust_rejected`, `timeout`,
    /// `invalid_response`); `error` for a failure that is not the session's.
    let error: String
    /// The sentence printed on stderr.
    let message: String
    /// The exit status.
    let exitStatus: Int32
    /// For a rejected server, the whole decision (as `tsec evaluate --json` prints it).
    private(set) var trust: TrustDecision?
    /// For a timeout, the limit in milliseconds.
    private(set) var timeoutMilliseconds: Double?
    /// For a timeout, what the request was doing.
    private(set) var during: String?
    /// For a status `-f` refused, the status.
    private(set) var status: Int?
    /// The request's idempotency key as its field held it (`--idempotency-key`, or one given
    /// with `-H`): the key to send the request again with.
    let idempotencyKey: String?

    init(_ failure: any Error, exitStatus: Int32, idempotencyKey: String?) {
        self.exitStatus = exitStatus
        self.idempotencyKey = idempotencyKey
        message = "\(failure)"
        guard let failure = failure as? SecureSessionError else {
            error = "error"
            return
        }
        error = failure.kind
        trust = failure.trustDecision
        timeoutMilliseconds = failure.timeLimit?.inMilliseconds
        if failure.code == .timeout { during = failure.detail }
        if failure.code == .unacceptableStatus { status = failure.statusCode }
    }
}
