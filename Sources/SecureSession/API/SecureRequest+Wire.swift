import Foundation
import TransportSecurity

extension SecureRequest {
    /// The request line's target (RFC 9112 §3.2.1, origin form): the URL's path and query exactly
    /// as the URL percent-encodes them. Never decoded: `%2F`, `%20` or `%0D%0A` reach the server
    /// as written, not as a slash, a space or a line break.
    var requestTarget: String {
        let path = url.path(percentEncoded: true)
        var target = path.isEmpty ? "/" : path
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        return target
    }

    /// Why this request cannot be written as it is, or `nil`: a method or header name that is
    /// not an HTTP token, a header value with CR, LF or NUL (which would split the header) or
    /// another control character but a tab (which swift-nio's encoder refuses), an idempotency
    /// key field sent twice, a target with white space or control characters. Header values are
    /// never quoted back.
    func malformation() -> String? {
        if !Self.isToken(method.rawValue) {
            return "the method \(method.rawValue.debugDescription) is not an HTTP token"
        }
        for field in headers {
            if !Self.isToken(field.name) {
                return "the header name \(field.name.debugDescription) is not an HTTP token"
            }
            if field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
                return "the value of the header \(field.name) contains CR, LF or NUL"
            }
            if field.value.holdsFieldValueControlCharacter {
                return "the value of the header \(field.name) contains a control character other than a tab (RFC 9110 §5.5)"
            }
        }
        if headers.filter({ $0.name.equalsIgnoringASCIICase("Host") }).count > 1 {
            return "the request has several Host header fields, which a server must refuse (RFC 9112 §3.2)"
        }
        if let malformation = idempotencyKeyMalformation() { return malformation }
        if requestTarget.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return "the path or query of \(url.redacted.debugDescription) contains white space or control characters"
        }
        return nil
    }

    /// An HTTP token (RFC 9110 §5.6.2): one or more of the visible ASCII characters that are not
    /// delimiters.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// The characters a query item's name or value keeps as they are; everything else is
    /// percent-encoded, `+`, `&`, `=`, `;` and `#` included (a `+` left alone reads as a space to
    /// a form decoder).
    static let queryItemAllowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/?")

    /// `url` with `items` appended to its query, each name and value percent-encoded with
    /// ``queryItemAllowed``.
    static func url(_ url: URL, appending items: [URLQueryItem]) -> URL {
        guard !items.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        let encoded = items.map { item in
            let name = item.name.addingPercentEncoding(withAllowedCharacters: queryItemAllowed) ?? ""
            guard let value = item.value else { return name }
            return name + "=" + (value.addingPercentEncoding(withAllowedCharacters: queryItemAllowed) ?? "")
        }
        let existing = components.percentEncodedQuery.map { $0.isEmpty ? [] : [$0] } ?? []
        components.percentEncodedQuery = (existing + encoded).joined(separator: "&")
        return components.url ?? url
    }
}
