import Foundation

/// Why a message could not be signed, or a signature is not accepted (RFC 9421). Each case
/// names the input and the reason; ``description`` is a sentence a person can act on.
public enum HTTPSignatureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key cannot sign or verify: not such a key, too short, encrypted.
    case unusableKey(String)
    /// A component identifier that RFC 9421 does not allow, or this one cannot be taken.
    case invalidComponent(String, reason: String)
    /// A covered component the message does not have (a missing field, query parameter or
    /// request).
    case componentNotInMessage(String, reason: String)
    /// The request's body cannot be digested or measured (a stream) for `Content-Digest` or
    /// `Content-Length`.
    case bodyNotAvailable(String)
    /// `Signature-Input`, `Signature` or `Content-Digest` is not what RFC 9421/9530 say.
    case malformedField(String, reason: String)
    /// The message carries no signature (or none labelled as asked).
    case noSignature(String)
    /// The signature names a key the verifier does not know, or none.
    case unknownKey(String?)
    /// The signature declares another algorithm than its key's.
    case algorithmMismatch(declared: String, key: HTTPSignatureAlgorithm)
    /// The signature does not cover what the verifier requires.
    case requiredComponentsNotCovered([String])
    /// The signature does not say when it was made, and the verifier requires it.
    case missingCreated
    /// The signature is too old, or its `expires` has passed.
    case expired(String)
    /// The signature says it was made in the future (beyond the allowed clock skew).
    case createdInFuture(Date)
    /// The signature's `tag` is not the one the verifier expects.
    case tagMismatch(expected: String, found: String?)
    /// The body does not match its `Content-Digest`.
    case contentDigestMismatch(String)
    /// The signature was accepted before (its key and nonce, or its key and bytes, shown): a
    /// replay (``HTTPSignatureReplayGuard``).
    case replayed(String)
    /// The replay guard holds as many valid signatures as it may, and takes no more.
    case replayGuardFull(Int)
    /// The signature has no end a replay guard could wait for: neither `created` under the
    /// verifier's `maximumAge` nor `expires`.
    case unboundedLifetime
    /// The signature has no `nonce`, which the verifier requires.
    case missingNonce
    /// The signature does not verify over the signature base (made from the message as
    /// received): the message was changed, or signed with another key.
    case invalidSignature(label: String, keyID: String, base: String)

    /// A sentence saying what is wrong.
    public var description: String {
        switch self {
        case .unusableKey(let reason): "unusable signature key: \(reason)"
        case .invalidComponent(let component, let reason): "invalid component \(component): \(reason)"
        case .componentNotInMessage(let component, let reason): "the covered component \(component) is not in the message: \(reason)"
        case .bodyNotAvailable(let reason): "the body cannot be covered: \(reason)"
        case .malformedField(let field, let reason): "malformed \(field): \(reason)"
        case .noSignature(let detail): "no signature: \(detail)"
        case .unknownKey(let id?): "the signature's keyid \"\(id)\" is not a key this verifier knows"
        case .unknownKey(nil): "the signature names no keyid, and the verifier finds keys by it"
        case .algorithmMismatch(let declared, let key): "the signature declares alg \"\(declared)\", and its key verifies \(key.rawValue)"
        case .requiredComponentsNotCovered(let components): "the signature does not cover \(components.joined(separator: ", ")), which the verifier requires"
        case .missingCreated: "the signature has no 'created' time, which the verifier requires"
        case .expired(let reason): "the signature is no longer valid: \(reason)"
        case .createdInFuture(let date): "the signature says it was created at \(date), in the future"
        case .tagMismatch(let expected, let found?): "the signature's tag is \"\(found)\", not \"\(expected)\""
        case .tagMismatch(let expected, nil): "the signature has no tag; \"\(expected)\" is required"
        case .contentDigestMismatch(let reason): "the body does not match its Content-Digest: \(reason)"
        case .replayed(let identity): "the signature was accepted before (\(identity)): a replay"
        case .replayGuardFull(let capacity): "the replay guard already holds \(capacity) valid signatures and takes no more"
        case .unboundedLifetime: "the signature has neither 'created' (the verifier has no maximumAge) nor 'expires': a replay guard cannot tell how long to remember it"
        case .missingNonce: "the signature has no 'nonce', which the verifier requires"
        case .invalidSignature(let label, let keyID, _): "the signature '\(label)' (keyid \"\(keyID)\") does not verify: the message was changed or signed with another key"
        }
    }
}
