/// An HTTP/2 server's answer that a request needs HTTP/1.1 (`HTTP_1_1_REQUIRED`, RFC 9113 §7),
/// given before any of the response: the session sends the request again on a connection that
/// offers HTTP/1.1 only, and keeps using HTTP/1.1 with that server.
///
/// Apache's mod_http2 answers so when a location asks for a client certificate the connection
/// did not present (`SSLVerifyClient require` in a `<Location>`): HTTP/1.1 over TLS 1.2 gets it
/// through a renegotiation, which HTTP/2 forbids (RFC 9113 §9.2.1).
struct HTTP1Required: Error, CustomStringConvertible {
    /// Why, in words.
    let description: String
}
