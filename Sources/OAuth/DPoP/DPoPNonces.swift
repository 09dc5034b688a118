import Foundation
import NIOConcurrencyHelpers
import TransportSecurity

/// The latest nonce each server gave for DPoP proofs (RFC 9449 §8, §9), by origin: the token
/// endpoint's and each API's apart, as each server keeps its own.
package final class DPoPNonces: Sendable {
    private let nonces = NIOLockedValueBox<[String: String]>([:])

    /// No nonce yet.
    package init() {}

    /// The nonce for proofs to `url`'s origin, when its server gave one.
    package func nonce(for url: URL) -> String? {
        guard let origin = ServerName.origin(of: url) else { return nil }
        return nonces.withLockedValue { $0[origin] }
    }

    /// Notes the nonce a response from `url` carried (its `DPoP-Nonce` field); whether it is
    /// new.
    @discardableResult
    package func note(_ nonce: String?, from url: URL) -> Bool {
        guard let nonce, !nonce.isEmpty, let origin = ServerName.origin(of: url) else { return false }
        return nonces.withLockedValue { $0.updateValue(nonce, forKey: origin) != nonce }
    }
}
