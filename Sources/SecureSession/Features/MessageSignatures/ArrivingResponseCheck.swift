import Foundation
import HTTPMessageSignatures
import NIOCore
import NIOHTTP1

/// A response from a host whose responses must be signed (``ResponseSignatureRequirement``),
/// checked as it arrives: its signature over its head before the first byte is handed over (a
/// stream) or once it ended (`send`, whose body is held; a download, whose file is put in place
/// only then), and its body against the `Content-Digest` the signature covers as the body
/// passes, never held for the check.
///
/// One check follows one request: the session tells it each request it sends (redirects,
/// answered challenges), and a body held or downloaded that starts over after a retry says so.
///
/// Nothing is taken from an answer that must be signed before it is verified: what the session
/// would note of it (its cookies, HSTS, what the cache keeps) waits in the check
/// (``whenVerified(_:)``) and is done only once the answer is verified, so that a refused
/// answer leaves no trace.
final class ArrivingResponseCheck: @unchecked Sendable {
    private let requirement: ResponseSignatureRequirement
    private let lock = NSLock()
    /// The request of the exchange under way, as ``SecureResponse/sentRequest`` will be.
    private var sent: SecureRequest?
    /// Whether the answer's signature was verified.
    private var headVerified = false
    /// Whether the verified signature covers `content-digest`.
    private var coversBody = false
    /// The body's digests so far, when the answer has a `Content-Digest`; the field's fault if
    /// it could not be read.
    private var digest: Result<ContentDigest.Check, HTTPSignatureError>?
    /// Whether the answer's head was read for its `Content-Digest` (once per answer).
    private var digestLookedFor = false
    private var bodyBytes = 0
    /// What the session takes from the answer, held until the answer is verified.
    private var heldEffects: [@Sendable () -> Void] = []

    init(_ requirement: ResponseSignatureRequirement) {
        self.requirement = requirement
    }

    /// The request the session sends next: its answer is a new one.
    func willSend(_ request: SecureRequest) {
        lock.withLock {
            sent = request
            resetAnswer()
        }
    }

    /// Whether the answers from `url`'s host must be signed.
    func requires(_ url: URL) -> Bool {
        requirement.applies(to: url)
    }

    /// Does `effect` once the answer to the request under way is verified: never when it is
    /// refused, or when another request is sent (or the body starts over) first.
    func whenVerified(_ effect: @escaping @Sendable () -> Void) {
        lock.withLock { heldEffects.append(effect) }
    }

    /// Does what was held for an answer the session acted on instead of handing it over (a
    /// redirect it follows, a challenge it answers), once its head verified (``verifyHead(_:)``):
    /// its body is dropped unread.
    func actedOnVerifiedHead() {
        for effect in lock.withLock({ headVerified ? takeHeldEffects() : [] }) { effect() }
    }

    /// The answer's body starts over (a download retried).
    func startOver() {
        lock.withLock { resetAnswer() }
    }

    /// Verifies the signature over `head`, unless the host's responses need none.
    /// - Throws: ``SecureSessionError/responseSignatureRejected(statusCode:reason:)``.
    func verifyHead(_ head: HTTPResponseHead) throws(SecureSessionError) {
        try verifyHead(ResponseHead(head))
    }

    /// Verifies the signature over `head`, unless the host's responses need none.
    /// - Throws: ``SecureSessionError/responseSignatureRejected(statusCode:reason:)``.
    func verifyHead(_ head: ResponseHead) throws(SecureSessionError) {
        lock.lock()
        defer { lock.unlock() }
        try verifyHeadLocked(statusCode: head.statusCode, headers: head.headers, url: sent?.url, answering: sent)
    }

    /// Takes a part of the answer's body, with the answer's head for its `Content-Digest`.
    func absorb(_ part: ByteBuffer, of head: HTTPResponseHead) {
        lock.withLock {
            if !digestLookedFor {
                digestLookedFor = true
                let values = head.headers["Content-Digest"]
                if !values.isEmpty {
                    do throws(HTTPSignatureError) {
                        digest = .success(try ContentDigest.Check(values.joined(separator: ", ")))
                    } catch {
                        digest = .failure(error)
                    }
                }
            }
            bodyBytes += part.readableBytes
            if case .success(var check) = digest {
                part.withUnsafeReadableBytes { check.update($0) }
                digest = .success(check)
            }
        }
    }

    /// Checks the answer once it ended: its signature, if not verified yet, and its body.
    /// - Throws: ``SecureSessionError/responseSignatureRejected(statusCode:reason:)``.
    func finish(_ response: SecureResponse) throws(SecureSessionError) {
        lock.lock()
        do {
            try finishLocked(response)
        } catch {
            // A refused answer leaves no trace.
            heldEffects = []
            lock.unlock()
            throw error
        }
        let effects = takeHeldEffects()
        lock.unlock()
        for effect in effects { effect() }
    }

    private func finishLocked(_ response: SecureResponse) throws(SecureSessionError) {
        guard requirement.applies(to: response.url) else { return }
        try verifyHeadLocked(statusCode: response.statusCode, headers: response.headers, url: response.url, answering: response.sentRequest ?? sent)
        do throws(HTTPSignatureError) {
            if coversBody {
                switch digest {
                case .success(let check): try check.finish()
                case .failure(let error): throw error
                case nil:
                    // No part came: the digests must be those of nothing.
                    try ContentDigest.Check(Self.contentDigest(in: response.headers) ?? "").finish()
                }
            } else if requirement.requiresBodyCoverage, bodyBytes > 0 {
                throw .requiredComponentsNotCovered(["content-digest"])
            }
        } catch {
            throw .responseSignatureRejected(statusCode: response.statusCode, reason: error)
        }
    }

    private func resetAnswer() {
        headVerified = false
        coversBody = false
        digest = nil
        digestLookedFor = false
        bodyBytes = 0
        heldEffects = []
    }

    private func takeHeldEffects() -> [@Sendable () -> Void] {
        defer { heldEffects = [] }
        return heldEffects
    }

    /// Verifies the signature of the answer to `request` at `url`, unless it was verified or the
    /// host's answers need none; an answer whose URL is not known is verified (fail closed).
    private func verifyHeadLocked(
        statusCode: Int,
        headers: [(name: String, value: String)],
        url: URL?,
        answering request: SecureRequest?
    ) throws(SecureSessionError) {
        guard !headVerified else { return }
        if let url, !requirement.applies(to: url) { return }
        // The body is checked as it passes: the signature is verified over the head alone.
        var verifier = requirement.verifier
        let digestField = HTTPMessageComponent.field("content-digest")
        verifier.requiredComponents.removeAll { $0 == digestField }
        do throws(HTTPSignatureError) {
            let message = HTTPSignatureMessage.response(statusCode: statusCode, headers: headers, answering: request.map { HTTPSignatureMessage($0) })
            let verified = try verifier.verify(message)
            coversBody = verified.parameters.components.contains(digestField)
            if requirement.verifier.requiredComponents.contains(digestField), !coversBody {
                throw .requiredComponentsNotCovered(["content-digest"])
            }
        } catch {
            throw .responseSignatureRejected(statusCode: statusCode, reason: error)
        }
        headVerified = true
    }

    private static func contentDigest(in headers: [(name: String, value: String)]) -> String? {
        let values = headers.filter { $0.name.equalsIgnoringASCIICase("Content-Digest") }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}

extension SecureRequest {
    /// Does `effect` (what the session takes from the answer: its cookies, HSTS, what the cache
    /// keeps) now or, when the answers to this request must be signed, once its answer is
    /// verified: a refused answer leaves no trace.
    func whenAnswerVerified(_ effect: @escaping @Sendable () -> Void) {
        if let arrivalCheck, arrivalCheck.requires(url) {
            arrivalCheck.whenVerified(effect)
        } else {
            effect()
        }
    }
}
