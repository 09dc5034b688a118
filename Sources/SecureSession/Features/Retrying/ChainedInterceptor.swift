/// Several interceptors as one (Alamofire's `Interceptor(adapters:retriers:)`): each adapts the
/// request in turn, in order; after an attempt they are asked in order, and the first that
/// wants a retry decides.
///
/// ```swift
/// configuration.features.interceptor = ChainedInterceptor([BearerToken(tokens: store), RetryPolicy()])
/// ```
public struct ChainedInterceptor: RequestInterceptor {
    /// The interceptors, in order.
    public let interceptors: [any RequestInterceptor]

    /// Chains `interceptors`.
    public init(_ interceptors: [any RequestInterceptor]) {
        self.interceptors = interceptors
    }

    /// The request adapted by each interceptor in turn.
    public func adapt(_ request: SecureRequest, attempt: RequestAttempt) async throws -> SecureRequest {
        var adapted = request
        for interceptor in interceptors {
            adapted = try await interceptor.adapt(adapted, attempt: attempt)
        }
        return adapted
    }

    /// The first decision to retry, else ``RetryDecision/doNotRetry``.
    public func retry(_ request: SecureRequest, after outcome: AttemptOutcome, attempt: RequestAttempt) async -> RetryDecision {
        for interceptor in interceptors {
            let decision = await interceptor.retry(request, after: outcome, attempt: attempt)
            if decision != .doNotRetry { return decision }
        }
        return .doNotRetry
    }
}
