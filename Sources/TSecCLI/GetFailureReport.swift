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
    let trust: TrustDecision?
    /// For a timeout, the limit in milliseconds and what the request was doing.
    let timeoutMilliseconds: Double?
    let during: String?
    /// For a status `-f` refused, the status.
    let status: Int?

    init(_ failure: any Error, exitStatus: Int32) {
        self.exitStatus = exitStatus
        message = "\(failure)"
        guard let failure = failure as? SecureSessionError else {
            (error, trust, timeoutMilliseconds, during, status) = ("error", nil, nil, nil, nil)
            return
        }
        error = failure.kind
        switch failure {
        case .trustRejected(let decision): (trust, timeoutMilliseconds, during, status) = (decision, nil, nil, nil)
        case .timeout(let limit, let stage): (trust, timeoutMilliseconds, during, status) = (nil, limit.inMilliseconds, stage, nil)
        case .unacceptableStatus(let code, _): (trust, timeoutMilliseconds, during, status) = (nil, nil, nil, code)
        default: (trust, timeoutMilliseconds, during, status) = (nil, nil, nil, nil)
        }
    }
}
