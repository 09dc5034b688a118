/// A server asked for a client certificate by renegotiating TLS during a request (Apache does
/// for a location with `SSLVerifyClient require`), on a connection whose certificate requests go
/// to a challenge handler: swift-nio-ssl cannot wait for the handler there and ends the
/// connection (`wantX509Lookup`). The session sends the request again on a connection that
/// presents the handler's answer (``ClientCertificateChallenge``).
struct CertificateRequestedByRenegotiation: Error, CustomStringConvertible {
    /// Why, in words.
    let description: String
}
