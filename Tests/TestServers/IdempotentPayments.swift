import Foundation

/// What a test server's `POST /payments` does: a payment API that honours idempotency keys as
/// draft-ietf-httpapi-idempotency-key-header describes. A request's key is the value of its
/// `Idempotency-Key` field (or of the field the query's `field=` names); none, or the field
/// twice, is a 400. The first request with a key creates a payment (a 201 naming it); later ones
/// with the same key get that answer again with `Idempotent-Replayed: true`, or a 422 when their
/// body differs. With `busy=N`, the first N requests with a key get a 409 (the first is "still
/// being processed"); with `lose=N`, the next N are processed and their connection closed with
/// no answer, as if the answer were lost on the way.
public final class IdempotentPayments: @unchecked Sendable {
    private struct Record {
        let body: Data
        var requests = 0
        var payment: Int?
    }

    /// What the route does with a request.
    enum Answer: Equatable {
        case respond(status: Int, body: String, fields: [String: String])
        case dropConnection
    }

    private let lock = NSLock()
    private var records: [String: Record] = [:]
    private var paymentsMade = 0
    private var keysReceived: [String] = []

    /// The payments created, all keys together.
    public var created: Int { lock.withLock { paymentsMade } }
    /// The key of every request received, in arrival order, as its field held it.
    public var keys: [String] { lock.withLock { keysReceived } }

    /// The requests received with `key` (as its field held it).
    public func requests(withKey key: String) -> Int { lock.withLock { records[key]?.requests ?? 0 } }

    func answer(keyFields: [String], body: Data, query: [String: String]) -> Answer {
        guard keyFields.count == 1, let key = keyFields.first, !key.isEmpty else {
            let reason = keyFields.isEmpty ? "the request has no idempotency key" : "the request has \(keyFields.count) idempotency keys"
            return .respond(status: 400, body: reason, fields: [:])
        }
        let busy = Int(query["busy"] ?? "0") ?? 0
        let lose = Int(query["lose"] ?? "0") ?? 0
        return lock.withLock {
            keysReceived.append(key)
            var record = records[key] ?? Record(body: body)
            record.requests += 1
            defer { records[key] = record }
            guard record.body == body else {
                return .respond(status: 422, body: "the key \(key) was used with another body", fields: [:])
            }
            if record.requests <= busy {
                return .respond(status: 409, body: "a request with the key \(key) is being processed", fields: [:])
            }
            let replayed = record.payment != nil
            if record.payment == nil {
                paymentsMade += 1
                record.payment = paymentsMade
            }
            if record.requests <= busy + lose { return .dropConnection }
            return .respond(
                status: 201,
                body: "payment \(record.payment!) for \(String(decoding: body, as: UTF8.self))",
                fields: replayed ? ["Idempotent-Replayed": "true"] : [:]
            )
        }
    }
}
