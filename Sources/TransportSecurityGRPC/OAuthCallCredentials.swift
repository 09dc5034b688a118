#if GRPC
import Foundation
import GRPCCore
import OAuth

/// OAuth 2.0 client credentials for gRPC calls, as a grpc-swift client interceptor: every call
/// carries `authorization: Bearer <token>` metadata with the token `OAuthClientCredentials`
/// obtains, keeps while it is fresh and renews before it expires (one token request however
/// many calls wait), the same token its HTTP requests carry when the two share it.
///
/// ```swift
/// let credentials = try OAuthClientCredentials(
///     tokenURL: URL(string: "https://auth.bank.example/oauth2/token")!,
///     clientID: "partner-42", authentication: .mutualTLS, scopes: ["payments"],
///     hosts: ["payments.bank.example"], tokenSession: tokens)
/// try await withGRPCClient(transport: transport, interceptors: [OAuthCallCredentials(credentials)]) { client in /* the calls */ }
/// ```
///
/// A call the server answers `UNAUTHENTICATED` tells the credentials so: a token servers had
/// accepted is forgotten (revoked or expired early) and the next call, or the next attempt of
/// a call whose retry policy names `.unauthenticated`, carries a new one; a token no server ever
/// accepted is kept, so that a client that lost its rights asks for one new token, not one per
/// call. A call that gets no token fails before anything is sent: `UNAUTHENTICATED` when the
/// token endpoint refused or answered unusably (the `OAuthError` as the `RPCError`'s `cause`),
/// `UNAVAILABLE` when it could not be reached or its certificate was rejected (the
/// `SecureSessionError` as the cause), `CANCELLED` when the call was.
///
/// grpc-swift's interceptors do not see the transport: give these credentials only to a client
/// whose transport is TLS (`HTTP2ClientTransport.Posix(target:verifiedBy:…)`),
/// and only to the clients of the servers the token is meant for (grpc-swift's
/// `ConditionalInterceptor` narrows them to some services). `OAuthClientCredentials.hosts`
/// choose the HTTP requests that carry the token, not gRPC calls. The token is never logged or
/// shown in a description.
///
/// **Tokens bound by DPoP** (RFC 9449, `OAuthClientCredentials.proofOfPossession`)
/// need the server's URL, which a proof names (`htu`) and which grpc-swift does not tell an
/// interceptor:
///
/// ```swift
/// let bound = OAuthCallCredentials(credentials, server: URL(string: "https://payments.bank.example")!)
/// ```
///
/// Each call then carries `authorization: DPoP <token>` and a `dpop` proof made for it alone:
/// `htm` `POST` and `htu` the server's URL with the call's path
/// (`https://payments.bank.example/package.Service/Method`), the token's hash (`ath`), a new `jti`,
/// and the latest nonce the server gave in `dpop-nonce` metadata. A call the server refuses
/// `UNAUTHENTICATED` with `www-authenticate` naming `use_dpop_nonce` (its nonce in `dpop-nonce`)
/// did not refuse the token: the token is kept, and the next call, or the next attempt of a call
/// whose retry policy names `.unauthenticated`, carries a proof with the nonce. Without `server`,
/// calls with DPoP-bound credentials fail `UNAUTHENTICATED`
/// (`OAuthError.proofRequiredPerRequest`); a server URL that is not https fails
/// them so too (`OAuthError.cleartextRequest`).
/// A proof's `htu` names the server as `server` does: give the name and port the server knows
/// itself by.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
public struct OAuthCallCredentials: ClientInterceptor, CustomStringConvertible {
    /// Where the tokens come from (SecureSession's `OAuthClientCredentials`, or another source).
    public let credentials: any OAuthAuthorizing
    /// The URL of the server the calls go to (`https://host[:port]`), which DPoP proofs name;
    /// `nil` when not given (bearer tokens need none).
    public let server: URL?

    /// Credentials for the calls of the clients this interceptor is given to.
    /// - Parameters:
    ///   - credentials: The client credentials whose tokens the calls carry.
    ///   - server: The server the calls go to, `https://host[:port]` (a path is ignored): needed
    ///     for tokens bound by DPoP, whose proofs name it with each call's path.
    public init(_ credentials: some OAuthAuthorizing, server: URL? = nil) {
        self.credentials = credentials
        self.server = server
    }

    /// `OAuthCallCredentials(OAuthClientCredentials(…), server: https://host)`: no secret, no
    /// token.
    public var description: String {
        "OAuthCallCredentials(\(credentials)\(server.map { ", server: \($0.redacted)" } ?? ""))"
    }

    /// The call with the current token in its `authorization` metadata (replacing any of its
    /// own; a DPoP-bound token with the call's proof in `dpop`), and the server's answer noted:
    /// `UNAUTHENTICATED` as a refusal of the token (not when it demands a DPoP nonce), any
    /// answer of the server's other than a transport failure as its acceptance.
    /// - Throws: An `RPCError` when there is no token (`UNAUTHENTICATED`, `UNAVAILABLE` or
    ///   `CANCELLED`, the reason as its cause); the call's own errors.
    public func intercept<Input: Sendable, Output: Sendable>(
        request: StreamingClientRequest<Input>,
        context: ClientContext,
        next: (StreamingClientRequest<Input>, ClientContext) async throws -> StreamingClientResponse<Output>
    ) async throws -> StreamingClientResponse<Output> {
        let callURL = server.map { Self.url(of: context.descriptor, at: $0) }
        let given: OAuthRequestAuthorization
        do {
            if let callURL {
                given = try await credentials.authorization(method: "POST", url: callURL)
            } else {
                given = OAuthRequestAuthorization(authorization: try await credentials.authorizationValue(), proof: nil)
            }
        } catch {
            throw Self.noToken(because: error, from: credentials)
        }
        var request = request
        request.metadata.replaceOrAddString(given.authorization, forKey: "authorization")
        request.metadata.removeAllValues(forKey: Self.proofKey)
        if let proof = given.proof { request.metadata.addString(proof, forKey: Self.proofKey) }
        let response = try await next(request, context)
        var nonceDemanded = false
        if given.proof != nil, let callURL {
            let answered = switch response.accepted {
            case .success(let contents): contents.metadata
            case .failure(let error): error.metadata
            }
            credentials.serverGaveNonce(Array(answered[stringValues: Self.nonceKey]).first, from: callURL)
            nonceDemanded = DPoPProof.demandsNonce(answered[stringValues: "www-authenticate"])
        }
        switch response.accepted {
        case .success:
            await credentials.serverAccepted(authorization: given.authorization)
        case .failure(let error) where error.code == .unauthenticated:
            // A demand for a nonce is no refusal of the token.
            if !nonceDemanded { await credentials.serverRefused(authorization: given.authorization) }
        case .failure(let error) where Self.transportFailures.contains(error.code):
            break  // The server may never have seen the token.
        case .failure:
            await credentials.serverAccepted(authorization: given.authorization)
        }
        return response
    }

    /// The metadata key of a DPoP proof, and of the nonce a server gives for proofs (RFC 9449
    /// §4.1, §9: HTTP fields, lowercase as HTTP/2 sends them).
    private static let proofKey = DPoPProof.field.lowercased()
    private static let nonceKey = DPoPProof.nonceField.lowercased()

    /// The URL of a call of `method` to `server`: its origin, then `/package.Service/Method`.
    static func url(of method: MethodDescriptor, at server: URL) -> URL {
        guard var parts = URLComponents(url: server, resolvingAgainstBaseURL: true) else { return server }
        parts.user = nil
        parts.password = nil
        parts.query = nil
        parts.fragment = nil
        parts.path = "/" + method.fullyQualifiedMethod
        return parts.url ?? server
    }

    /// Codes a call fails with when it may not have reached the server's handler.
    private static let transportFailures: Set<RPCError.Code> = [.unavailable, .deadlineExceeded, .cancelled, .unknown, .internalError]

    /// The error of a call that got no token because of `error`.
    static func noToken(because error: any Error, from credentials: any OAuthAuthorizing) -> RPCError {
        switch error {
        case let error as RPCError:
            error
        case _ where credentials.isCancellation(error):
            RPCError(code: .cancelled, message: "the call was cancelled while its access token was requested", cause: error)
        case let error as OAuthError:
            RPCError(code: .unauthenticated, message: "no access token: \(error)", cause: error)
        default:
            RPCError(code: .unavailable, message: "no access token: the token endpoint was not reached: \(error)", cause: error)
        }
    }
}
#endif
