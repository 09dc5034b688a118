import SecureSession

/// `tsec get --oauth2-issuer`: OAuth client credentials whose token endpoint is discovered
/// from the issuer's metadata when the first request needs a token, then used as
/// ``SecureSession/OAuthClientCredentials`` are; a failure to discover fails that request.
struct DiscoveringOAuthCredentials: RequestInterceptor {
    private let discovery: Discovery

    /// Credentials made by `discover` (once) when a request first needs them.
    init(_ discover: @escaping @Sendable () async throws -> OAuthClientCredentials) {
        discovery = Discovery(discover)
    }

    func adapt(_ request: SecureRequest, attempt: RequestAttempt) async throws -> SecureRequest {
        try await discovery.credentials().adapt(request, attempt: attempt)
    }

    func retry(_ request: SecureRequest, after outcome: AttemptOutcome, attempt: RequestAttempt) async -> RetryDecision {
        guard let credentials = await discovery.discovered else { return .doNotRetry }
        return await credentials.retry(request, after: outcome, attempt: attempt)
    }

    /// The discovery, made once however many requests ask.
    private actor Discovery {
        private let discover: @Sendable () async throws -> OAuthClientCredentials
        private var running: Task<OAuthClientCredentials, any Error>?
        /// The credentials, once discovered.
        private(set) var discovered: OAuthClientCredentials?

        init(_ discover: @escaping @Sendable () async throws -> OAuthClientCredentials) {
            self.discover = discover
        }

        func credentials() async throws -> OAuthClientCredentials {
            if let discovered { return discovered }
            let task = running ?? Task { try await discover() }
            running = task
            let credentials = try await task.value
            discovered = credentials
            return credentials
        }
    }
}
