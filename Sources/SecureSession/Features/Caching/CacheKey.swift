import Crypto
import Foundation

/// What a kept response answers: the resource, and how it was asked for. Requests that differ
/// in any of these never share a response: the connection's key without its HTTP version
/// (client identity, trust evaluator with its pins and pin set, transport rule, proxy, challenge
/// handler) and the request's credentials.
struct CacheKey: Sendable, Hashable {
    /// ``ResponseCache/resource(of:)`` of the request's URL.
    let resource: String
    /// The key of the connections that may answer the request, whatever HTTP version they speak.
    let partition: ConnectionKey
    /// The SHA-256 of the request's fields that say who the client is (``CredentialFields``:
    /// `Authorization`, `Cookie`, an API key of its own name…) and of a `Host` the caller wrote
    /// (another virtual host of the server); `nil` with none.
    let credentials: SHA256Digest?

    /// The key of `request` (as sent: with its cookies) over connections of `connectionKey`;
    /// `nil` when its URL names no resource that can be kept.
    init?(request: SecureRequest, connectionKey: ConnectionKey) {
        guard let resource = ResponseCache.resource(of: request.url) else { return nil }
        self.resource = resource
        partition = connectionKey.offering(http1Only: false)
        let secrets = request.headers.filter { $0.name.equalsIgnoringASCIICase("Host") || CredentialFields.carriesCredential($0.name) }
        if secrets.isEmpty {
            credentials = nil
        } else {
            var hash = SHA256()
            for field in secrets {
                hash.update(data: Data("\(field.name.lowercased())\u{0}\(field.value)\u{0}".utf8))
            }
            credentials = hash.finalize()
        }
    }

    /// The value of the request field `name` as a response's `Vary` compares it: every field of
    /// that name, trimmed and joined with `, `; `nil` when there is none.
    static func value(of name: String, in fields: [(name: String, value: String)]) -> String? {
        let values = fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value.trimmingHTTPWhitespace)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The fields a response's `Vary` names, lowercased; `nil` when it names `*` (no request
    /// can be known to match: such a response is not kept).
    static func variedNames(of varyFields: [String]) -> [String]? {
        let names = varyFields.flatMap { $0.split(separator: ",") }.map { $0.trimmingHTTPWhitespace.lowercased() }.filter { !$0.isEmpty }
        return names.contains("*") ? nil : names
    }
}
