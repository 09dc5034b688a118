import NIOHTTP1

extension HTTPResponseHead {
    /// An interim answer (`100 Continue`, `103 Early Hints`) that a final one follows. A status
    /// under 100 is not: RFC 9110 §15 has a client treat a status outside 100...599 as a server
    /// error, so it is a final answer (one the default validation refuses).
    var isInformational: Bool {
        (100..<200).contains(status.code) && status != .switchingProtocols
    }

    /// Why this final head cannot be read as a response to the request, or `nil`: a
    /// `101 Switching Protocols` (the connection would go on in another protocol, which the
    /// session does not speak), or a transfer coding other than `chunked`, whose body would
    /// reach the caller still encoded.
    var unreadableReason: String? {
        if status == .switchingProtocols {
            return "the server answered 101 Switching Protocols: the session speaks HTTP only and does not switch protocols"
        }
        let codings = headers[canonicalForm: "Transfer-Encoding"].map { $0.lowercased() }
        if let unknown = codings.first(where: { $0 != "chunked" }) {
            return "the response uses the transfer coding '\(unknown)', which the session does not decode (only chunked is)"
        }
        return nil
    }
}
