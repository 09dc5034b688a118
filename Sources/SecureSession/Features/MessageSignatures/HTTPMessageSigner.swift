import Foundation
import HTTPMessageSignatures
import OAuth

/// Signs every request a ``SecureSession`` sends with an HTTP message signature (RFC 9421):
/// the `Signature-Input` and `Signature` fields, made anew for each attempt (a fresh `created`
/// and `nonce`), over the components it covers; the body covered through `Content-Digest`
/// (RFC 9530), which it adds. What FAPI 2.0 message signing, payment networks and partner APIs
/// ask of a client, beside mutual TLS.
///
/// ```swift
/// let key = try HTTPSignatureKey(id: "client-2026", pemEncoded: pem)
/// var configuration = SecureSessionConfiguration()
/// configuration.features.interceptor = HTTPMessageSigner(key: key, covering: [.method, .targetURI, .field("content-type")])
/// ```
///
/// A covered field the request lacks fails the request before anything is sent
/// (`HTTPSignatureError.componentNotInMessage`), as does a streamed body when the
/// body is to be covered (`HTTPSignatureError.bodyNotAvailable`). On a redirect to
/// another origin the signature fields are dropped with the other credentials.
public struct HTTPMessageSigner: RequestInterceptor {
    /// The key.
    public var key: HTTPSignatureKey
    /// The components covered, in order (``defaultComponents`` unless said otherwise).
    public var components: [HTTPMessageComponent]
    /// The label of the signature in both fields (`sig1`).
    public var label: String
    /// How long a signature is valid (its `expires`, after `created`); `nil` gives none.
    public var lifetime: Duration?
    /// Whether each signature carries a random `nonce` (against replay, for servers that keep
    /// them).
    public var includesNonce: Bool
    /// Whether each signature says its algorithm (`alg`); RFC 9421 prefers the verifier to know
    /// it from the key.
    public var includesAlgorithm: Bool
    /// The `tag` (the application or profile the signature is for), if any.
    public var tag: String?
    /// Whether a request with a body gets a `Content-Digest` (when it has none) and covers it,
    /// even when ``components`` does not name it.
    public var coversBody: Bool
    /// The digest `Content-Digest` is made with.
    public var digestAlgorithm: ContentDigest.Algorithm
    private let clock: @Sendable () -> Date

    /// `@method` and `@target-uri`: the request's method and whole URL (the body joins them
    /// through ``coversBody``).
    public static let defaultComponents: [HTTPMessageComponent] = [.method, .targetURI]

    /// A signer.
    /// - Parameters:
    ///   - key: The key.
    ///   - components: What each signature covers.
    ///   - label: The signature's label.
    ///   - lifetime: How long a signature is valid (`expires`); `nil` gives none.
    ///   - includesNonce: Whether signatures carry a random `nonce`.
    ///   - includesAlgorithm: Whether signatures say their `alg`.
    ///   - tag: The `tag`, if any.
    ///   - coversBody: Whether a body is covered through `Content-Digest`.
    ///   - digestAlgorithm: The digest of `Content-Digest`.
    ///   - clock: The time signatures are `created` at (tests fix it).
    public init(
        key: HTTPSignatureKey,
        covering components: [HTTPMessageComponent] = HTTPMessageSigner.defaultComponents,
        label: String = "sig1",
        lifetime: Duration? = .seconds(300),
        includesNonce: Bool = false,
        includesAlgorithm: Bool = false,
        tag: String? = nil,
        coversBody: Bool = true,
        digestAlgorithm: ContentDigest.Algorithm = .sha256,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.key = key
        self.components = components
        self.label = label
        self.lifetime = lifetime
        self.includesNonce = includesNonce
        self.includesAlgorithm = includesAlgorithm
        self.tag = tag
        self.coversBody = coversBody
        self.digestAlgorithm = digestAlgorithm
        self.clock = clock
    }

    /// Signs `message` as it is, covering ``components`` (no field added): for a server signing
    /// its responses, or a caller adding the fields itself.
    /// - Throws: `HTTPSignatureError` for a component the message lacks or cannot give.
    public func signature(for message: HTTPSignatureMessage) throws(HTTPSignatureError) -> HTTPMessageSignature {
        try signature(for: message, covering: components)
    }

    private func signature(for message: HTTPSignatureMessage, covering components: [HTTPMessageComponent]) throws(HTTPSignatureError) -> HTTPMessageSignature {
        guard Self.isKey(label) else {
            throw .invalidComponent(label, reason: "a signature label is a structured-field key: lowercase letters, digits, '_-.*', beginning with a letter or '*'")
        }
        let created = clock()
        let parameters = HTTPSignatureParameters(
            components: components,
            created: created,
            expires: lifetime.map { created.addingTimeInterval($0.inMilliseconds / 1000) },
            nonce: includesNonce ? Self.nonce() : nil,
            algorithm: includesAlgorithm ? key.algorithm.rawValue : nil,
            keyID: key.id,
            tag: tag
        )
        let serialized = try parameters.serialized
        let base = try HTTPSignatureBase.make(covering: components, parameters: serialized, in: message)
        let signature: Data
        do {
            signature = try key.signature(of: Data(base.utf8))
        } catch {
            throw .unusableKey("\(key) could not sign: \(error)")
        }
        return HTTPMessageSignature(label: label, parameters: parameters, base: base, signature: signature, signatureInputMember: "\(label)=\(serialized)")
    }

    /// `request` with its `Content-Digest` (when it has a body to cover), a `Content-Length`
    /// when that is covered and not given, and the signature's members appended to
    /// `Signature-Input` and `Signature`.
    /// - Throws: `HTTPSignatureError` for a component the request lacks, a streamed body to
    ///   cover, or a label the request's fields already use.
    public func signed(_ request: SecureRequest) throws(HTTPSignatureError) -> SecureRequest {
        var request = request
        var covered = components
        let hasBody = request.hasBody
        let digestCovered = covered.contains(.field("content-digest"))
        if digestCovered || (coversBody && hasBody) {
            if request.header("Content-Digest") == nil {
                request.headers.append(("Content-Digest", try digest(of: request)))
            }
            if !digestCovered { covered.append(.field("content-digest")) }
        }
        if covered.contains(.field("content-length")), request.header("Content-Length") == nil {
            request.headers.append(("Content-Length", String(try length(of: request))))
        }
        if try SignatureFields(request.headers).labels.contains(label) {
            throw .malformedField("Signature-Input", reason: "the request already has a signature labelled '\(label)'")
        }
        let signature = try signature(for: HTTPSignatureMessage(request), covering: covered)
        request.headers.append(("Signature-Input", signature.signatureInputMember))
        request.headers.append(("Signature", signature.signatureMember))
        return request
    }

    /// Signs each attempt (``signed(_:)``).
    public func adapt(_ request: SecureRequest, attempt: RequestAttempt) async throws -> SecureRequest {
        try signed(request)
    }

    /// The `Content-Digest` of the body the session will send, read as it reads it.
    private func digest(of request: SecureRequest) throws(HTTPSignatureError) -> String {
        if request.bodyStream != nil {
            throw .bodyNotAvailable("a streamed body is not known before it is sent, so no Content-Digest can be made: give it as data or a file, or set coversBody to false")
        }
        do {
            guard let body = try RequestBodySource.of(request) else {
                return ContentDigest.fieldValue(for: Data(), algorithm: digestAlgorithm)
            }
            return try ContentDigest.fieldValue(for: body, algorithm: digestAlgorithm)
        } catch let sessionError as SecureSessionError where sessionError.code == .unreadableUpload {
            throw .bodyNotAvailable(sessionError.detail ?? "\(sessionError)")
        } catch {
            throw .bodyNotAvailable("\(error)")
        }
    }

    /// The `Content-Length` the session will send, measured as it measures it.
    private func length(of request: SecureRequest) throws(HTTPSignatureError) -> Int64 {
        if request.bodyStream != nil {
            throw .bodyNotAvailable("a streamed body has no Content-Length before it is sent")
        }
        let body: RequestBodySource?
        do {
            body = try RequestBodySource.of(request)
        } catch {
            throw .bodyNotAvailable("\(error)")
        }
        if let length = body?.length { return length }
        guard [.post, .put, .patch].contains(request.method) else {
            throw .componentNotInMessage("\"content-length\"", reason: "a \(request.method.rawValue) without a body is sent without Content-Length")
        }
        return 0
    }

    /// 16 random bytes, base64url.
    private static func nonce() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return JWT.base64URL(bytes)
    }

    /// A structured-field key (RFC 8941 §3.1.2).
    static func isKey(_ text: String) -> Bool {
        guard let first = text.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) || first == UInt8(ascii: "*") else { return false }
        return text.utf8.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || "_-.*".utf8.contains($0)
        }
    }
}
