import Crypto
import Foundation
import TransportSecurity
import RawStructuredFieldValues

/// Verifies HTTP message signatures (RFC 9421 §3.2): on a server, the requests clients sign;
/// on a client, the responses a server signs. Fails closed, and says why: no signature, an
/// unknown key, another algorithm than the key's, a required component not covered, too old or
/// expired, another tag, a body that does not match its `Content-Digest`, a signature that
/// does not verify (with the base it was checked over).
///
/// ```swift
/// let verifier = HTTPMessageSignatureVerifier(
///     keys: [try HTTPSignatureVerificationKey(id: "client-2026", pemEncoded: publicPEM)],
///     requiredComponents: [.method, .targetURI, .field("content-digest")]
/// )
/// let verified = try verifier.verify(.request(method: "POST", url: url, headers: fields, body: body))
/// ```
public struct HTTPMessageSignatureVerifier: Sendable {
    /// The keys signatures may name, by `keyid`.
    public var keys: [String: HTTPSignatureVerificationKey]
    /// What an accepted signature must cover. Set it: a signature covering nothing (which RFC
    /// 9421 allows) proves only that the key once signed something at its `created` time. A
    /// covered `content-digest` is checked against the body; requiring it and giving no body
    /// fails.
    public var requiredComponents: [HTTPMessageComponent]
    /// The label of the signature to verify; `nil` verifies the first one whose `keyid` is
    /// known (no other is tried when it fails).
    public var label: String?
    /// The `tag` a signature must carry, if any.
    public var tag: String?
    /// How old a signature may be (after its `created`); `nil` for no limit.
    public var maximumAge: Duration?
    /// How far ahead of the verifier's clock a signature's `created` may be.
    public var allowedClockSkew: Duration
    /// Whether a signature without `created` is refused.
    public var requiresCreated: Bool
    /// Whether a signature without `nonce` is refused.
    public var requiresNonce: Bool = false
    /// Refuses a signature accepted before, while it is valid (`nil`: replays are not looked
    /// for). With a guard, a signature needs an end: `created` under ``maximumAge``, or
    /// `expires`.
    public var replayGuard: HTTPSignatureReplayGuard?
    private let clock: @Sendable () -> Date

    /// A verifier.
    /// - Parameters:
    ///   - keys: The keys, each under its ``HTTPSignatureVerificationKey/id``.
    ///   - requiredComponents: What a signature must cover.
    ///   - label: The signature to verify, or `nil` for the first with a known key.
    ///   - tag: The `tag` required, if any.
    ///   - maximumAge: How old a signature may be (5 minutes unless said otherwise).
    ///   - allowedClockSkew: How far in the future `created` may be (a minute).
    ///   - requiresCreated: Whether `created` must be given.
    ///   - clock: The verifier's time (tests fix it).
    public init(
        keys: [HTTPSignatureVerificationKey],
        requiredComponents: [HTTPMessageComponent] = [],
        label: String? = nil,
        tag: String? = nil,
        maximumAge: Duration? = .seconds(300),
        allowedClockSkew: Duration = .seconds(60),
        requiresCreated: Bool = true,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.keys = Dictionary(keys.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        self.requiredComponents = requiredComponents
        self.label = label
        self.tag = tag
        self.maximumAge = maximumAge
        self.allowedClockSkew = allowedClockSkew
        self.requiresCreated = requiresCreated
        self.clock = clock
    }

    /// Verifies `message`'s signature.
    /// - Throws: ``HTTPSignatureError`` saying why it is not accepted.
    public func verify(_ message: HTTPSignatureMessage) throws(HTTPSignatureError) -> VerifiedHTTPSignature {
        let fields = try SignatureFields(message.headers)
        let (label, innerList) = try chosenSignature(in: fields)
        let parameters = try HTTPSignatureParameters(innerList: innerList, label: label)
        guard let keyID = parameters.keyID, let key = keys[keyID] else { throw .unknownKey(parameters.keyID) }
        if let declared = parameters.algorithm, declared != key.algorithm.rawValue {
            throw .algorithmMismatch(declared: declared, key: key.algorithm)
        }
        let missing = requiredComponents.filter { !parameters.components.contains($0) }
        guard missing.isEmpty else { throw .requiredComponentsNotCovered(missing.map(\.description)) }
        try checkTimes(of: parameters)
        if let tag, parameters.tag != tag { throw .tagMismatch(expected: tag, found: parameters.tag) }
        if requiresNonce, parameters.nonce == nil { throw .missingNonce }
        guard case .item(let item)? = fields.signatures[label], case .undecodedByteSequence(let encoded) = item.rfc9651BareItem,
              let signature = Data(base64Encoded: encoded) else {
            throw .malformedField("Signature", reason: "no byte sequence labelled '\(label)'")
        }
        // One signature has one spelling: base64 with unused bits set before the padding decodes
        // to the same bytes, and would pass for another signature.
        guard signature.base64EncodedString() == encoded else {
            throw .malformedField("Signature", reason: "the byte sequence labelled '\(label)' is not canonical base64 (bits set that base64 leaves unused, or no padding): one signature written another way")
        }
        // The @signature-params line is the member as received (its parameters in their order,
        // those unknown here included).
        let base = try HTTPSignatureBase.make(
            covering: parameters.components,
            parameters: try HTTPSignatureParameters.serialize(innerList),
            in: message
        )
        guard key.isValidSignature(signature, of: Data(base.utf8)) else {
            throw .invalidSignature(label: label, keyID: keyID, base: base)
        }
        let bodyVerified = try checkBody(of: message, covered: parameters.components)
        if let replayGuard {
            // Only signatures that verified are remembered: nobody fills the guard without a key.
            // Without a nonce, a signature is known by what it signs (the signature base, which
            // holds its parameters, created included) and its key, never by its bytes: ECDSA's
            // (r, n - s) and RSA-PSS's fresh salt sign the same base with other bytes.
            let identity = "keyid \"\(keyID)\", " + (parameters.nonce.map { "nonce \"\($0)\"" } ?? "signature base \(Self.digest(of: base))")
            try replayGuard.admit(identity, validUntil: try end(of: parameters), now: clock())
        }
        return VerifiedHTTPSignature(label: label, keyID: keyID, algorithm: key.algorithm, parameters: parameters, base: base, bodyVerified: bodyVerified)
    }

    /// SHA-256 of a signature base, in hexadecimal: what a replay guard knows a signature
    /// without a nonce by.
    static func digest(of base: String) -> String {
        SHA256.hash(data: Data(base.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The signature to verify: the one labelled ``label``, else the first whose `keyid` is known.
    private func chosenSignature(in fields: SignatureFields) throws(HTTPSignatureError) -> (String, InnerList) {
        guard !fields.inputs.isEmpty else { throw .noSignature("the message has no Signature-Input field") }
        var candidates: [(String, InnerList)] = []
        for (name, member) in fields.inputs {
            guard label == nil || label == name else { continue }
            guard case .innerList(let list) = member else {
                throw .malformedField("Signature-Input", reason: "'\(name)' is not an inner list of components")
            }
            candidates.append((name, list))
        }
        if let label {
            guard let found = candidates.first else {
                throw .noSignature("none labelled '\(label)' (the message has \(fields.labels.map { "'\($0)'" }.joined(separator: ", ")))")
            }
            return found
        }
        let known = candidates.first { _, list in
            if case .string(let id)? = list.rfc9651Parameters["keyid"] { return keys[id] != nil }
            return false
        }
        guard let chosen = known ?? candidates.first else { throw .noSignature("the Signature-Input field is empty") }
        return chosen
    }

    private func checkTimes(of parameters: HTTPSignatureParameters) throws(HTTPSignatureError) {
        let now = clock()
        if let created = parameters.created {
            if created.timeIntervalSince(now) > allowedClockSkew.inMilliseconds / 1000 { throw .createdInFuture(created) }
            if let maximumAge, now.timeIntervalSince(created) > maximumAge.inMilliseconds / 1000 {
                throw .expired("created at \(created), more than \(maximumAge) before \(now)")
            }
        } else if requiresCreated {
            throw .missingCreated
        }
        if let expires = parameters.expires, expires < now {
            throw .expired("it expired at \(expires) (now \(now))")
        }
    }

    /// When the signature stops being accepted: its `expires`, or `created` plus
    /// ``maximumAge``, whichever comes first.
    private func end(of parameters: HTTPSignatureParameters) throws(HTTPSignatureError) -> Date {
        let aged = parameters.created.flatMap { created in maximumAge.map { created.addingTimeInterval($0.inMilliseconds / 1000) } }
        guard let end = [aged, parameters.expires].compactMap({ $0 }).min() else { throw .unboundedLifetime }
        return end
    }

    /// Compares the body with a covered `Content-Digest`; `false` when the body is not known.
    private func checkBody(of message: HTTPSignatureMessage, covered: [HTTPMessageComponent]) throws(HTTPSignatureError) -> Bool {
        let digest = HTTPMessageComponent.field("content-digest")
        guard covered.contains(digest) else { return false }
        guard let body = message.body else {
            if requiredComponents.contains(digest) {
                throw .bodyNotAvailable("the body must be checked against its Content-Digest, and the message was given without it")
            }
            return false
        }
        try ContentDigest.verify(message.fieldValues("content-digest").joined(separator: ", "), body: body)
        return true
    }

}
