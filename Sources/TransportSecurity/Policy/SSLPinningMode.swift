/// How a ``SecurityPolicy`` pins the server: AFNetworking's `AFSSLPinningMode`.
public enum SSLPinningMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// No pinning: trust is decided by the trust store alone.
    case none
    /// Some certificate of the server's chain must carry a pinned public key.
    case publicKey
    /// The chain must validate to a pinned certificate used as the only anchor.
    case certificate
}
