/// How an attempt of a request ended, as a ``RequestInterceptor`` is told.
public enum AttemptOutcome: Sendable {
    /// The server answered (the final answer, after redirects and HTTP authentication); its body
    /// has not been handed to the caller.
    case response(ResponseHead)
    /// The attempt failed. `requestSent` is `false` only when it is certain that nothing of the
    /// request left this process (no connection could be made), so that even a request that is
    /// not idempotent may be sent again.
    case failure(SecureSessionError, requestSent: Bool)

    /// The status code of a response; `nil` for a failure.
    public var statusCode: Int? {
        guard case .response(let head) = self else { return nil }
        return head.statusCode
    }
}
