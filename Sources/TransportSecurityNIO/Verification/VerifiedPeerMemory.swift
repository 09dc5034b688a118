import Crypto
import Foundation
import NIOConcurrencyHelpers
import TransportSecurity

/// The validated paths a ``PeerTrustVerifier`` trusted, by the SHA-256 of their peer
/// certificate, so that a connection that *resumes* a TLS session (on which swift-nio-ssl runs
/// no verification and holds no validated path, only the peer certificate the session kept)
/// can be told who its peer is: the identity the full handshake that made the session
/// verified, for as long as that decision may be reused.
///
/// Bounded: the oldest entries make way beyond ``capacity``; an entry past its decision's reuse
/// bound (the earliest expiry of its path, or sooner) answers nothing.
final class VerifiedPeerMemory: Sendable {
    /// The most peers remembered.
    static let capacity = 4_096

    private struct Entry {
        let path: [DERCertificate]
        let validUntil: Date
        let order: UInt64
    }

    private struct State {
        var entries: [[UInt8]: Entry] = [:]
        var next: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Remembers that `path` (peer certificate first) was trusted, until `validUntil`.
    func remember(_ path: [DERCertificate], until validUntil: Date) {
        guard let peer = path.first else { return }
        state.withLockedValue { state in
            if state.entries.count >= Self.capacity, state.entries[peer.sha256Fingerprint] == nil,
                let oldest = state.entries.min(by: { $0.value.order < $1.value.order })?.key
            {
                state.entries[oldest] = nil
            }
            state.entries[peer.sha256Fingerprint] = Entry(path: path, validUntil: validUntil, order: state.next)
            state.next += 1
        }
    }

    /// The path trusted for the peer certificate `der`, if it is remembered and still valid at
    /// `time`.
    func path(forPeer der: [UInt8], at time: Date) -> [DERCertificate]? {
        let fingerprint = Array(SHA256.hash(data: der))
        return state.withLockedValue { state in
            guard let entry = state.entries[fingerprint] else { return nil }
            guard entry.validUntil > time else {
                state.entries[fingerprint] = nil
                return nil
            }
            return entry.path
        }
    }
}
