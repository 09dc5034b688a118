import Foundation

/// Remembers the signatures an ``HTTPMessageSignatureVerifier`` accepted, for as long as they
/// stay valid, and refuses one seen before (RFC 9421 §7.2.2): a signed payment captured on the
/// way and sent again is a replay. A signature is known by its key and `nonce`, or, when it
/// has no nonce, by its key and what it signs (its signature base, parameters included), never
/// by its bytes: the same request signed again with other bytes (ECDSA's `(r, n − s)`, another
/// RSA-PSS salt) or the same bytes written in another base64 spelling is still a replay. Its memory is bounded: when it holds `capacity` signatures
/// still valid, it refuses new ones (fail closed) rather than forget one that could come back.
///
/// ```swift
/// var verifier = HTTPMessageSignatureVerifier(keys: keys, requiredComponents: [.method, .targetURI])
/// verifier.replayGuard = HTTPSignatureReplayGuard()
/// ```
public final class HTTPSignatureReplayGuard: @unchecked Sendable {
    /// The most signatures it remembers at once.
    public let capacity: Int
    private let lock = NSLock()
    private var remembered: [String: Date] = [:]

    /// A guard remembering up to `capacity` signatures (100,000 by default).
    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// How many signatures it remembers now (those past their end included until the next
    /// purge).
    public var count: Int { lock.withLock { remembered.count } }

    /// Takes in a signature valid until `end`, or refuses it: seen before (and still valid), or
    /// no room left.
    func admit(_ identity: String, validUntil end: Date, now: Date) throws(HTTPSignatureError) {
        let refusal: HTTPSignatureError? = lock.withLock {
            if let known = remembered[identity], known >= now { return .replayed(identity) }
            if remembered.count >= capacity {
                remembered = remembered.filter { $0.value >= now }
                guard remembered.count < capacity else { return .replayGuardFull(capacity) }
            }
            remembered[identity] = end
            return nil
        }
        if let refusal { throw refusal }
    }
}
