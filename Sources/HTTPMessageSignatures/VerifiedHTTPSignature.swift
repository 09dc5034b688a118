import Foundation

/// A signature an ``HTTPMessageSignatureVerifier`` accepted: which one, by which key, over
/// what, and whether the body was checked against its `Content-Digest`.
public struct VerifiedHTTPSignature: Sendable, Hashable {
    /// Its label.
    public let label: String
    /// The key that verified it.
    public let keyID: String
    /// Its algorithm.
    public let algorithm: HTTPSignatureAlgorithm
    /// What it covers and its parameters, as received.
    public let parameters: HTTPSignatureParameters
    /// The signature base it was verified over.
    public let base: String
    /// Whether the message's body was compared with a covered `Content-Digest` (and matched).
    public let bodyVerified: Bool
}
