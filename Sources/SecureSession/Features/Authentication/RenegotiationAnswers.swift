import NIOConcurrencyHelpers
import TransportSecurityNIO

/// What challenge handlers answered to servers that asked for a client certificate by
/// renegotiating TLS during a request (Apache, for a location that requires one), per connection
/// key. swift-nio-ssl cannot wait for a handler then (``CertificateRequestedByRenegotiation``):
/// the session sends the request again on a connection presenting the answer kept here
/// (``answer(for:)``). Connections of the key asked later get the kept answer without a new
/// question, and those asked while a question is in flight share it, so that a burst of requests
/// puts the question once. A cancellation is not kept: the next request asks again.
final class RenegotiationAnswers: Sendable {
    /// The answers given, at most 1,024 keys.
    private let answers = BoundedMemory<ConnectionKey, ClientCertificateChallenge.Answer>()
    /// The questions in flight.
    private let pending = NIOLockedValueBox<[ConnectionKey: Task<ClientIdentity?, any Error>]>([:])

    /// The answer kept for `key`, if a handler gave one.
    func answer(for key: ConnectionKey) -> ClientCertificateChallenge.Answer? {
        answers.value(for: key)
    }

    /// The answer for `key`: the one kept, the one to the question in flight, or `ask`'s, put now
    /// and kept once given.
    func answer(for key: ConnectionKey, asking ask: @escaping @Sendable () async throws -> ClientIdentity?) async throws -> ClientIdentity? {
        let task: Task<ClientIdentity?, any Error> = pending.withLockedValue { pending in
            if let kept = answers.value(for: key) { return Task { kept.identity } }
            if let inFlight = pending[key] { return inFlight }
            let answers = answers
            let task = Task {
                let identity = try await ask()
                answers.remember(ClientCertificateChallenge.Answer(identity: identity), for: key)
                return identity
            }
            pending[key] = task
            return task
        }
        defer { pending.withLockedValue { if $0[key] == task { $0[key] = nil } } }
        return try await task.value
    }
}
