/// An interceptor that only adapts, from a closure: a header computed anew for every attempt
/// (a signature over the date, a token read from a store).
///
/// ```swift
/// let signing = RequestAdapter { request, _ in
///     var request = request
///     request.headers.append(("X-Signature", try await signer.signature(for: request)))
///     return request
/// }
/// ```
public struct RequestAdapter: RequestInterceptor {
    private let adaptation: @Sendable (SecureRequest, RequestAttempt) async throws -> SecureRequest

    /// An adapter that calls `adaptation` before every attempt.
    public init(_ adaptation: @escaping @Sendable (SecureRequest, RequestAttempt) async throws -> SecureRequest) {
        self.adaptation = adaptation
    }

    /// The request `adaptation` makes.
    public func adapt(_ request: SecureRequest, attempt: RequestAttempt) async throws -> SecureRequest {
        try await adaptation(request, attempt)
    }
}
