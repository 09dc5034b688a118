/// Adapts every attempt of a request before it is sent, and decides after each attempt whether
/// to try again (Alamofire's `RequestInterceptor`): the place for a bearer token that must be
/// fresh on every attempt, for refreshing it after a 401, and for a ``RetryPolicy``.
///
/// The session asks ``retry(_:after:attempt:)`` about the final answer of an attempt (after its
/// redirects and HTTP authentication challenges). For ``SecureSession/send(_:)`` and a download
/// to a file it asks once the answer is complete and its connection given back (so `retry` may
/// itself send requests, a token refresh, through the same session), and a retry starts the body
/// over. For ``SecureSession/stream(_:head:into:)`` and a download to a pipe or device, whose
/// consumer cannot take a body back, it asks when the head arrives, before any of the body is
/// handed over, while the connection waits: a retried answer never reaches the consumer, its
/// body is read and dropped. A failed attempt is put to it unless part of its answer already
/// reached such a consumer. Between attempts the session waits the delay asked for (cancelled
/// with the task); each attempt has the whole request timeout.
///
/// ```swift
/// struct BearerToken: RequestInterceptor {
///     let tokens: TokenStore
///     func adapt(_ request: SecureRequest, attempt: RequestAttempt) async throws -> SecureRequest {
///         var request = request
///         request.headers.append(("Authorization", "Bearer \(try await tokens.current())"))
///         return request
///     }
///     func retry(_ request: SecureRequest, after outcome: AttemptOutcome, attempt: RequestAttempt) async -> RetryDecision {
///         guard attempt.number == 1, outcome.statusCode == 401, await tokens.refresh() else { return .doNotRetry }
///         return .retry(after: .zero)
///     }
/// }
/// ```
public protocol RequestInterceptor: Sendable {
    /// The request to send for `attempt`, made from the request the caller gave (never from an
    /// earlier attempt's adaptation). An error thrown here ends the request and reaches the
    /// caller as it is.
    func adapt(_ request: SecureRequest, attempt: RequestAttempt) async throws -> SecureRequest

    /// Whether to send `request` (the one ``adapt(_:attempt:)`` made) once more after `outcome`.
    func retry(_ request: SecureRequest, after outcome: AttemptOutcome, attempt: RequestAttempt) async -> RetryDecision
}

extension RequestInterceptor {
    /// Sends the request as it is.
    public func adapt(_ request: SecureRequest, attempt: RequestAttempt) async throws -> SecureRequest { request }

    /// Never tries again.
    public func retry(_ request: SecureRequest, after outcome: AttemptOutcome, attempt: RequestAttempt) async -> RetryDecision {
        .doNotRetry
    }
}
