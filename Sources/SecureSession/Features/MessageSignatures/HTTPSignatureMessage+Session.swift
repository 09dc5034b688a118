import Foundation
import HTTPMessageSignatures

extension HTTPSignatureMessage {
    /// The request a ``SecureSession`` sends (its in-memory body included).
    public init(_ request: SecureRequest) {
        self.init(method: request.method.rawValue, url: request.url, statusCode: nil, headers: request.headers, body: request.body, request: nil)
    }

    /// A response of a ``SecureSession`` (its body included), answering `request`, by default
    /// the request the session sent (``SecureResponse/sentRequest``, its signature fields
    /// included), for a response's signature that covers the request's components (`;req`).
    /// Check a body's `Content-Digest` with the session's decompression off: the digest is of
    /// the content as sent, compressed.
    public init(_ response: SecureResponse, answering request: SecureRequest? = nil) {
        self.init(
            method: nil,
            url: nil,
            statusCode: response.statusCode,
            headers: response.headers,
            body: response.body,
            request: (request ?? response.sentRequest).map { HTTPSignatureMessage($0) }
        )
    }
}
