/// Why a signed pin-set update, a key or the stored set was refused.
public struct PinUpdateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The signature does not verify against the public key.
        case badSignature
        /// The signature is not base64, or empty.
        case malformedSignature(String)
        /// The document is not the JSON this library reads (the detail names the field).
        case malformedDocument(String)
        /// The document's version is not higher than the stored one (no rollback).
        case notNewer(offered: Int, current: Int)
        /// The document's `expiresAt` has passed.
        case expired(String)
        /// The document's `issuedAt` is later than the clock allows.
        case issuedInTheFuture(String)
        /// A key file could not be read or is not an Ed25519 or P-256 key.
        case unusableKey(String)
        /// The stored file is unreadable, truncated or corrupt.
        case corruptStore(String)
        /// Reading or writing a file failed.
        case fileError(String)
    }

    /// What went wrong.
    public var reason: Reason
    /// The file or input concerned, when there is one.
    public var source: String?

    /// Makes an error.
    public init(_ reason: Reason, source: String? = nil) {
        self.reason = reason
        self.source = source
    }

    /// The input and the reason, as a sentence.
    public var description: String {
        let prefix = source.map { "\($0): " } ?? ""
        switch reason {
        case .badSignature: return prefix + "the signature does not verify with the pin-update public key"
        case .malformedSignature(let detail): return prefix + "the signature is unreadable: \(detail)"
        case .malformedDocument(let detail): return prefix + "the pin-update document is malformed: \(detail)"
        case .notNewer(let offered, let current): return prefix + "version \(offered) is not newer than the current version \(current) (rollback refused)"
        case .expired(let when): return prefix + "the document expired at \(when)"
        case .issuedInTheFuture(let when): return prefix + "the document says it was issued at \(when), which is in the future"
        case .unusableKey(let detail): return prefix + "unusable key: \(detail)"
        case .corruptStore(let detail): return prefix + "the stored pin set is unusable: \(detail)"
        case .fileError(let detail): return prefix + detail
        }
    }
}
