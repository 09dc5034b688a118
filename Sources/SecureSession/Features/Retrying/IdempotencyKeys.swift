/// Gives every request of a method that is not idempotent (`POST`, `PATCH`) an idempotency key
/// that all its attempts carry, so that a ``RetryPolicy`` may send it again after it may have
/// reached the server: a server that honours the key (draft-ietf-httpapi-idempotency-key-header;
/// Stripe, Adyen, PayPal and most payment APIs) processes it once and answers the repeats with
/// its first answer.
///
/// ```swift
/// configuration.features.interceptor = ChainedInterceptor([IdempotencyKeys(), RetryPolicy()])
/// // POST https://api.psp.example/payments
/// // Idempotency-Key: "1b4e28ba-2fa1-4d2b-a8c4-6f0e7e5a1c3d"   (the same on every retry)
/// ```
///
/// The key is a random UUID made once per request (from ``RequestAttempt/requestID``): the
/// retries, redirects and answered challenges of one request carry it, no other request does. A
/// request that already carries the field keeps its own key. The key goes no further than the
/// request: to send an operation again after the request failed for good (the process ended, or
/// the retries ran out with its fate unknown), make the key yourself, keep it with the operation,
/// and set it with ``SecureRequest/setIdempotencyKey(_:field:format:)``; this interceptor then
/// leaves it as it is.
///
/// In a ``ChainedInterceptor``, put it before an ``HTTPMessageSigner`` (so that the signature
/// can cover the key) and before the ``RetryPolicy`` or other interceptors that read it.
public struct IdempotencyKeys: RequestInterceptor, Hashable {
    /// How a key is written in its field.
    public enum Format: Sendable, Hashable {
        /// A structured-field string (RFC 8941), `Idempotency-Key: "8e03978e-…"`, as the IETF
        /// draft writes it.
        case structuredString
        /// The key as it is, `Idempotency-Key: 8e03978e-…`, as Stripe's, Adyen's and PayPal's
        /// documentation writes it (the quotes of a structured string would be part of the key
        /// there).
        case bare
    }

    /// The field that carries the key: `Idempotency-Key` unless said otherwise (PayPal's
    /// `PayPal-Request-Id`).
    public var fieldName: String
    /// The methods whose requests get a key.
    public var methods: Set<HTTPMethod>
    /// How the key is written.
    public var format: Format

    /// Keys requests of `methods` (`POST` and `PATCH` by default) in the field `fieldName`,
    /// written as `format` says.
    public init(fieldName: String = "Idempotency-Key", methods: Set<HTTPMethod> = [.post, .patch], format: Format = .structuredString) {
        self.fieldName = fieldName
        self.methods = methods
        self.format = format
    }

    /// The request with its key: the one it carries in ``fieldName``, else the key of
    /// `attempt`'s request.
    /// - Throws: ``SecureSessionError/invalidRequest(_:)`` when ``fieldName`` is not an HTTP
    ///   token.
    public func adapt(_ request: SecureRequest, attempt: RequestAttempt) async throws -> SecureRequest {
        guard methods.contains(request.method) else { return request }
        var keyed = request
        if request.headers.contains(where: { $0.name.equalsIgnoringASCIICase(fieldName) }) {
            keyed.readIdempotencyKey(from: fieldName)
            return keyed
        }
        try keyed.setIdempotencyKey(Self.key(for: attempt), field: fieldName, format: format)
        return keyed
    }

    /// The key of the request `attempt` belongs to: its ``RequestAttempt/requestID`` as a
    /// lower-case UUID.
    public static func key(for attempt: RequestAttempt) -> String {
        attempt.requestID.uuidString.lowercased()
    }
}
