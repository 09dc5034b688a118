import Foundation

/// What gives requests their OAuth authorization and hears how servers took it: the access
/// token to send (with a DPoP proof for a bound token), and the answers that accept it, refuse
/// it or give a DPoP nonce.
///
/// SecureSession's `OAuthClientCredentials` is one (the client-credentials grant, its tokens
/// fetched through a session); TransportSecurityGRPC's `OAuthCallCredentials` puts any of them on
/// gRPC calls, so it needs no HTTP client of its own.
public protocol OAuthAuthorizing: Sendable, CustomStringConvertible {
    /// The `Authorization` value for a request of `method` to `url`, and its DPoP proof when the
    /// token is bound.
    func authorization(method: String, url: URL) async throws -> OAuthRequestAuthorization

    /// The `Authorization` value of the current token (`Bearer …`), for requests whose URL is not
    /// known (no DPoP proof can be made for them).
    func authorizationValue() async throws -> String

    /// Notes the DPoP nonce a server at `url` gave (`DPoP-Nonce`), for the next proofs to it;
    /// whether it was one to keep.
    @discardableResult
    func serverGaveNonce(_ nonce: String?, from url: URL) -> Bool

    /// Notes that a server took `authorization`.
    func serverAccepted(authorization: String) async

    /// Notes that a server refused `authorization`; whether the token was dropped for it.
    @discardableResult
    func serverRefused(authorization: String) async -> Bool

    /// Whether `error`, thrown while a token was sought, says the request for it was cancelled
    /// (the source's own cancellation error among them).
    func isCancellation(_ error: any Error) -> Bool
}

extension OAuthAuthorizing {
    /// A `CancellationError`.
    public func isCancellation(_ error: any Error) -> Bool { error is CancellationError }
}
