import GRPCCore
import SecureSession

/// OAuth 2.0 client credentials for gRPC calls, as a grpc-swift client interceptor: every call
/// carries `authorization: Bearer <token>` metadata with the token ``OAuthClientCredentials``
/// obtains, keeps while it is fresh and renews before it expires (one token request however
/// many calls wait), the same token its HTTP requests carry when the two share it.
///
/// ```swift
/// let credentials = try OAuthClientCredentials(
///     tokenURL: URL(string: "https://auth.bank.example/oauth2/token")!,
///     clientID: "partner-42", authentication: .mutualTLS, scopes: ["payments"],
///     hosts: ["payments.bank.example"], tokenSession: tokens)
/// try await withGRPCClient(transport: transport, interceptors: [OAuthCallCredentials(credentials)]) { client in … }
/// ```
///
/// A call the server answers `UNAUTHENTICATED` tells the credentials so: a token servers had
/// accepted is forgotten (revoked or expired early) and the next call, or the next attempt of
/// a call whose retry policy names `.unauthenticated`, carries a new one; a token no server ever
/// accepted is kept, so that a client that lost its rights asks for one new token, not one per
/// call. A call that gets no token fails before anything is sent: `UNAUTHENTICATED` when the
/// token endpoint refused or answered unusably (the ``OAuthError`` as the `RPCError`'s `cause`),
/// `UNAVAILABLE` when it could not be reached or its certificate was rejected (the
/// `SecureSessionError` as the cause), `CANCELLED` when the call was.
///
/// grpc-swift's interceptors do not see the transport: give these credentials only to a client
/// whose transport is TLS (`HTTP2ClientTransport.Posix(target:verifiedBy:…)`),
/// and only to the clients of the servers the token is meant for (grpc-swift's
/// `ConditionalInterceptor` narrows them to some services). ``OAuthClientCredentials/hosts``
/// choose the HTTP requests that carry the token, not gRPC calls. Tokens bound by DPoP
/// (``SecureSession/OAuthClientCredentials/proofOfPossession``) are for HTTP requests only: the
/// calls fail `UNAUTHENTICATED` (``SecureSession/OAuthError/proofRequiredPerRequest``). The token
/// is never logged or shown in a description.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
public struct OAuthCallCredentials: ClientInterceptor, CustomStringConvertible {
    /// Where the tokens come from.
    public let credentials: OAuthClientCredentials

    /// Credentials for the calls of the clients this interceptor is given to.
    /// - Parameter credentials: The client credentials whose tokens the calls carry.
    public init(_ credentials: OAuthClientCredentials) {
        self.credentials = credentials
    }

    /// `OAuthCallCredentials(OAuthClientCredentials(…))`: no secret, no token.
    public var description: String { "OAuthCallCredentials(\(credentials))" }

    /// The call with the current token in its `authorization` metadata (replacing any of its
    /// own), and the server's answer noted: `UNAUTHENTICATED` as a refusal of the token, any
    /// answer of the server's other than a transport failure as its acceptance.
    /// - Throws: An `RPCError` when there is no token (`UNAUTHENTICATED`, `UNAVAILABLE` or
    ///   `CANCELLED`, the reason as its cause); the call's own errors.
    public func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingClientRequest<Input>,
        context: ClientContext,
        next: (StreamingClientRequest<Input>, ClientContext) async throws -> StreamingClientResponse<Output>
    ) async throws -> StreamingClientResponse<Output> {
        let authorization: String
        do {
            authorization = try await credentials.authorizationValue()
        } catch {
            throw Self.noToken(because: error)
        }
        var request = request
        request.metadata.replaceOrAddString(authorization, forKey: "authorization")
        let response = try await next(request, context)
        switch response.accepted {
        case .success:
            await credentials.serverAccepted(authorization: authorization)
        case .failure(let error) where error.code == .unauthenticated:
            await credentials.serverRefused(authorization: authorization)
        case .failure(let error) where Self.transportFailures.contains(error.code):
            break  // The server may never have seen the token.
        case .failure:
            await credentials.serverAccepted(authorization: authorization)
        }
        return response
    }

    /// Codes a call fails with when it may not have reached the server's handler.
    private static let transportFailures: Set<RPCError.Code> = [.unavailable, .deadlineExceeded, .cancelled, .unknown, .internalError]

    /// The error of a call that got no token because of `error`.
    static func noToken(because error: any Error) -> RPCError {
        switch error {
        case let error as RPCError:
            error
        case is CancellationError, SecureSessionError.cancelled:
            RPCError(code: .cancelled, message: "the call was cancelled while its access token was requested", cause: error)
        case let error as OAuthError:
            RPCError(code: .unauthenticated, message: "no access token: \(error)", cause: error)
        default:
            RPCError(code: .unavailable, message: "no access token: the token endpoint was not reached: \(error)", cause: error)
        }
    }
}
