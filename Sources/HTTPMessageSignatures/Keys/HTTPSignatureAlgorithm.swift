/// The algorithms of HTTP message signatures (RFC 9421 §3.3), by their registered names.
public enum HTTPSignatureAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// RSASSA-PSS with SHA-512, MGF1 with SHA-512, a salt of 64 bytes (§3.3.1).
    case rsaPSSSHA512 = "rsa-pss-sha512"
    /// RSASSA-PKCS1-v1_5 with SHA-256 (§3.3.2).
    case rsaPKCS1v15SHA256 = "rsa-v1_5-sha256"
    /// HMAC with SHA-256 over a shared secret (§3.3.3).
    case hmacSHA256 = "hmac-sha256"
    /// ECDSA on P-256 with SHA-256, the signature as `r ‖ s` (§3.3.4).
    case ecdsaP256SHA256 = "ecdsa-p256-sha256"
    /// ECDSA on P-384 with SHA-384, the signature as `r ‖ s` (§3.3.5).
    case ecdsaP384SHA384 = "ecdsa-p384-sha384"
    /// Ed25519 (§3.3.6).
    case ed25519 = "ed25519"
}
