/// A TLS connection the server ended without TLS's close_notify after the handshake, which anyone
/// on the path can do. What it means depends on how far the response got, which the session
/// knows (``failure(answerBegun:)``): a body that ends with the connection is then not known
/// whole (a truncation attack); before any answer, the server dropped the request (over TLS 1.3,
/// a server refusing the client, its certificate say, may close so after the handshake).
struct ClosedWithoutCloseNotify: Error, CustomStringConvertible {
    /// The connection's server, as the request names it.
    let server: String

    var description: String { failure(answerBegun: true).description }

    /// The request's failure, in words fitting how far its response got.
    func failure(answerBegun: Bool) -> SecureSessionError {
        guard answerBegun else {
            return .connectionFailed(
                "\(server): the server closed the connection before answering, without TLS's close_notify (a server that refuses the client, its certificate say, may close so right after TLS 1.3's handshake)"
            )
        }
        return .connectionFailed(
            "\(server): the server closed the connection without TLS's close_notify before the response ended: a body that ends with the connection could have been cut short by anyone on the path (a truncation attack), so it is refused"
        )
    }
}
