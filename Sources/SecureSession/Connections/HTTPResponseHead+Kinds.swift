import NIOHTTP1
import TransportSecurity

extension HTTPResponseHead {
    /// A challenge the session may answer: `401` with a `WWW-Authenticate` field.
    var isChallenge: Bool {
        status == .unauthorized && headers.contains(name: "WWW-Authenticate")
    }

    /// A redirect the session may follow: `301`, `302`, `303`, `307` or `308` with a `Location`.
    var isRedirect: Bool {
        [301, 302, 303, 307, 308].contains(status.code) && headers.contains(name: "Location")
    }

    /// An interim answer (`100 Continue`, `103 Early Hints`) that a final one follows. A status
    /// under 100 is not: RFC 9110 §15 has a client treat a status outside 100...599 as a server
    /// error, so it is a final answer (one the default validation refuses).
    var isInformational: Bool {
        (100..<200).contains(status.code) && status != .switchingProtocols
    }

    /// Why this final head cannot be read as a response to the request, or `nil`: a
    /// `101 Switching Protocols` (the connection would go on in another protocol, which the
    /// session does not speak), a transfer coding other than `chunked`, whose body would reach
    /// the caller still encoded, or, over HTTP/2, a header value with a control character other
    /// than a tab. swift-nio's HTTP/1.1 parser refuses such values, and swift-nio-http2 refuses
    /// CR, LF and NUL only: an escape sequence in a value would otherwise reach the caller, and
    /// `tsec get -i`'s terminal, from an HTTP/2 server alone.
    var unreadableReason: String? {
        if status == .switchingProtocols {
            return "the server answered 101 Switching Protocols: the session speaks HTTP only and does not switch protocols"
        }
        if version.major == 2, let field = headers.first(where: { $0.value.holdsFieldValueControlCharacter }) {
            return "the value of the header \(field.name.escapingControlCharacters) holds a control character, which HTTP does not allow (RFC 9110 §5.5)"
        }
        let codings = headers[canonicalForm: "Transfer-Encoding"].map { $0.lowercased() }
        if let unknown = codings.first(where: { $0 != "chunked" }) {
            return "the response uses the transfer coding '\(unknown)', which the session does not decode (only chunked is)"
        }
        return nil
    }
}
