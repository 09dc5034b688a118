import Foundation
import HTTPMessageSignatures
import SecureSession

/// What a test server's `/signed` route does with HTTP message signatures (RFC 9421): checks the
/// request's with ``verifier`` (a 401 saying why when it fails, a 200 naming the signature when
/// it holds) and signs its answer with ``responseSigner``, covering the request's signature too.
public final class SignatureCheckpoint: @unchecked Sendable {
    private let lock = NSLock()
    private var storedVerifier: HTTPMessageSignatureVerifier?
    private var storedSigner: HTTPMessageSigner?
    private var storedBases: [String] = []

    /// Verifies requests to `/signed` (none: every request gets a 500).
    public var verifier: HTTPMessageSignatureVerifier? {
        get { lock.withLock { storedVerifier } }
        set { lock.withLock { storedVerifier = newValue } }
    }

    /// Signs `/signed`'s answers, when set.
    public var responseSigner: HTTPMessageSigner? {
        get { lock.withLock { storedSigner } }
        set { lock.withLock { storedSigner = newValue } }
    }

    /// The signature bases of the requests verified, in order.
    public var verifiedBases: [String] { lock.withLock { storedBases } }

    /// The answer to a request: status, body and the fields to add.
    func answer(method: String, url: URL, headers: [(name: String, value: String)], body: Data) -> (status: Int, body: String, fields: [(String, String)]) {
        guard let verifier else { return (500, "no verifier set", []) }
        let request = HTTPSignatureMessage.request(method: method, url: url, headers: headers, body: body)
        let text: String
        let status: Int
        do {
            let verified = try verifier.verify(request)
            lock.withLock { storedBases.append(verified.base) }
            (status, text) = (200, "verified \(verified.label) by \(verified.keyID), body checked: \(verified.bodyVerified)")
        } catch {
            (status, text) = (401, error.description)
        }
        guard let responseSigner else { return (status, text, []) }
        var fields: [(String, String)] = [("Content-Type", "text/plain"), ("Content-Digest", ContentDigest.fieldValue(for: Data(text.utf8)))]
        let response = HTTPSignatureMessage.response(statusCode: status, headers: fields, answering: request)
        guard let signature = try? responseSigner.signature(for: response) else { return (500, "the response could not be signed", []) }
        fields.append(("Signature-Input", signature.signatureInputMember))
        fields.append(("Signature", signature.signatureMember))
        return (status, text, fields.filter { $0.0 != "Content-Type" })
    }
}
