import RawStructuredFieldValues
import TransportSecurity

extension SecureRequest {
    /// The fields read as an idempotency key whatever ``idempotencyKeyField`` says:
    /// `Idempotency-Key` (the IETF's draft-ietf-httpapi-idempotency-key-header, Stripe, Adyen)
    /// and `X-Idempotency-Key` (the two Go's `net/http` honours).
    public static let standardIdempotencyKeyFields = ["Idempotency-Key", "X-Idempotency-Key"]

    /// The request's idempotency key as its field holds it (``idempotencyKeyField``, else one of
    /// ``standardIdempotencyKeyFields``), or `nil` when it carries none.
    ///
    /// A server that honours the key processes a request once however often it comes with that
    /// key, and answers the repeats with its first answer. So a request that carries one is
    /// repeated as an idempotent one is, whatever its method: sent again on a new connection
    /// when a kept-alive connection the server had closed fails it before any answer, and
    /// retried by a ``RetryPolicy`` after it may have reached the server. A field that is empty
    /// (or holds an empty string, `""`), or that the request carries more than once, is no key:
    /// which of two keys a server would take is unknown, so such a request is not repeated (and
    /// the session refuses to send it, ``SecureSessionError/invalidRequest(_:)``).
    public var idempotencyKey: String? {
        idempotencyKeyFieldCarried?.value
    }

    /// The field that carries the request's ``idempotencyKey`` (its name as the request writes
    /// it) and the key, or `nil`.
    public var idempotencyKeyFieldCarried: (name: String, value: String)? {
        for name in idempotencyKeyFieldNames {
            let fields = headers.filter { $0.name.equalsIgnoringASCIICase(name) }
            guard let field = fields.first else { continue }
            let value = field.value.trimmingHTTPWhitespace
            guard fields.count == 1, !value.isEmpty, value != "\"\"" else { return nil }
            return (field.name, value)
        }
        return nil
    }

    /// Whether sending the request twice has the effect of sending it once: its method is
    /// idempotent (RFC 9110 §9.2.2), or it carries an ``idempotencyKey``.
    public var isReplayable: Bool {
        method.isIdempotent || idempotencyKey != nil
    }

    /// Sets the request's idempotency key: `key` in the field `field` (replacing any value it
    /// had), written as `format` says. A field that is not one of
    /// ``standardIdempotencyKeyFields`` becomes ``idempotencyKeyField``.
    ///
    /// Make the key once per operation (a random UUID, or your own order number) and keep it
    /// with the operation: sending the request again later with the same key, after a crash or
    /// an error that left its fate unknown, cannot make the server do it twice.
    /// - Throws: ``SecureSessionError/invalidRequest(_:)`` for a field name that is not an HTTP
    ///   token, an empty key, or a key the format cannot carry (a structured string carries
    ///   printable ASCII only; a bare key, visible ASCII without spaces).
    public mutating func setIdempotencyKey(
        _ key: String,
        field: String = "Idempotency-Key",
        format: IdempotencyKeys.Format = .structuredString
    ) throws(SecureSessionError) {
        guard Self.isToken(field) else {
            throw .invalidRequest("the idempotency key field \(field.debugDescription) is not an HTTP token")
        }
        let value = try format.fieldValue(for: key)
        headers.removeAll { $0.name.equalsIgnoringASCIICase(field) }
        headers.append((name: field, value: value))
        readIdempotencyKey(from: field)
    }

    /// Makes `field` the one read for the key (``idempotencyKeyField``), unless it is a standard
    /// one, read anyway.
    mutating func readIdempotencyKey(from field: String) {
        if !Self.standardIdempotencyKeyFields.contains(where: { $0.equalsIgnoringASCIICase(field) }) {
            idempotencyKeyField = field
        }
    }

    /// The names read for a key: ``idempotencyKeyField`` first, then the standard ones.
    private var idempotencyKeyFieldNames: [String] {
        (idempotencyKeyField.map { [$0] } ?? []) + Self.standardIdempotencyKeyFields
    }

    /// Why the request's idempotency key fields are malformed, or `nil`: one of them appears
    /// more than once (the draft allows one; a server could take either).
    func idempotencyKeyMalformation() -> String? {
        for name in idempotencyKeyFieldNames {
            let count = headers.count { $0.name.equalsIgnoringASCIICase(name) }
            if count > 1 {
                return "the request carries \(count) \(name) fields; an idempotency key is sent once (draft-ietf-httpapi-idempotency-key-header §2)"
            }
        }
        return nil
    }
}

extension IdempotencyKeys.Format {
    /// `key` written as a field value in this format.
    func fieldValue(for key: String) throws(SecureSessionError) -> String {
        guard !key.isEmpty else { throw .invalidRequest("an idempotency key cannot be empty") }
        switch self {
        case .structuredString:
            guard key.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
                throw .invalidRequest("the idempotency key \(key.debugDescription) holds a character a structured string cannot carry (printable ASCII only, RFC 8941 §3.3.3)")
            }
            var serializer = StructuredFieldValueSerializer()
            let item = Item(bareItem: RFC9651BareItem.string(key), parameters: OrderedMap<String, RFC9651BareItem>())
            guard let bytes = try? serializer.writeItemFieldValue(item) else {
                throw .invalidRequest("the idempotency key \(key.debugDescription) cannot be written as a structured string")
            }
            return String(decoding: bytes, as: UTF8.self)
        case .bare:
            guard key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw .invalidRequest("the idempotency key \(key.debugDescription) holds a character a bare key cannot carry (visible ASCII without spaces)")
            }
            return key
        }
    }
}
