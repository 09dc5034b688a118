import Foundation
import NIOHTTP1

/// A request head as the session sent it — after redirects, challenges and retries, with the
/// fields the session adds (`Host`, `User-Agent`, `Content-Length`, `Connection`, `Cookie`,
/// `Authorization`, `Expect`) — for ``SecureSessionConfiguration/Features/requestHeadObserver`` (AFNetworking's
/// network activity logger; `tsec get -v` shows them as curl's `-v` does).
public struct SentRequestHead: Sendable {
    /// The method: `GET`, `POST`, …
    public let method: String
    /// The request target: the path and query (the whole URL for cleartext through an HTTP proxy).
    public let target: String
    /// `HTTP/1.1`, or `HTTP/2` for a request on an HTTP/2 stream.
    public let httpVersion: String
    /// The header fields, in order (over HTTP/2 without those it forbids: `Connection`,
    /// `Keep-Alive`, `Transfer-Encoding`, `Upgrade`, `Proxy-Connection`, `TE` but `trailers`).
    public let headers: [(name: String, value: String)]
    /// The URL the request went to.
    public let url: URL

    /// The head `head` for `url`, as it goes over HTTP/2 when `isHTTP2`.
    init(_ head: HTTPRequestHead, url: URL, isHTTP2: Bool) {
        method = head.method.rawValue
        target = head.uri
        self.url = url
        httpVersion = isHTTP2 ? "HTTP/2" : "HTTP/1.1"
        let sent = isHTTP2 ? HTTP2Connection.withoutForbiddenFields(head).headers : head.headers
        headers = sent.compactMap { field in
            isHTTP2 && Self.connectionSpecific.contains(where: { field.name.equalsIgnoringASCIICase($0) }) ? nil : (field.name, field.value)
        }
    }

    /// The fields HTTP/2's codec drops (RFC 9113 §8.2.2).
    private static let connectionSpecific = ["Connection", "Keep-Alive", "Transfer-Encoding", "Upgrade", "Proxy-Connection"]
}
