import Foundation
import TransportSecurity

/// Puts a connection's server trust to a challenge handler and turns the disposition
/// into a trust decision: `useCredential(.serverTrust)` accepts the server, `useCredential`
/// without a credential, or with one of another kind (a user, a client identity), refuses it
/// (fail closed), `performDefaultHandling` applies the default policy
/// (system trust and hostname), `cancelAuthenticationChallenge` and `rejectProtectionSpace`
/// refuse it, and the session reports them as their own errors.
struct ServerTrustChallengeEvaluator: ServerTrustEvaluating {
    let handler: HandlerIdentity
    let port: Int

    func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustDecision {
        let space = ProtectionSpace(host: host, port: port, isSecure: true, realm: nil, method: .serverTrust)
        let challenge = AuthenticationChallenge(protectionSpace: space, previousFailureCount: 0, serverTrust: trust)
        switch await handler.handler(challenge) {
        case .useCredential(.serverTrust?):
            return TrustDecision(isTrusted: true, decider: .challengeHandler(.useCredential), reason: "the challenge handler accepted the server trust")
        case .useCredential(.none):
            return TrustDecision(isTrusted: false, decider: .challengeHandler(.useCredential), reason: "the challenge handler answered without a credential")
        case .useCredential(.user?), .useCredential(.clientIdentity?):
            // A handler written for HTTP Basic or client certificates (`{ _ in
            // .useCredential(.user(…)) }`) must not turn TLS validation off by accident.
            return TrustDecision(
                isTrusted: false,
                decider: .challengeHandler(.useCredential),
                reason: "the challenge handler answered the server-trust challenge with a credential of another kind (a user or a client identity), which counts as none: only Credential.serverTrust trusts a server"
            )
        case .performDefaultHandling:
            return await SecurityPolicy.default.evaluate(trust, forDomain: host)
        case .cancelAuthenticationChallenge:
            return TrustDecision(isTrusted: false, decider: .challengeHandler(.cancelAuthenticationChallenge), reason: "the challenge handler cancelled the server-trust challenge")
        case .rejectProtectionSpace:
            return TrustDecision(isTrusted: false, decider: .challengeHandler(.rejectProtectionSpace), reason: "the challenge handler rejected the protection space")
        }
    }
}

/// A challenge handler with an identity, so that connections decided by it are kept apart.
final class HandlerIdentity: Sendable, Hashable {
    let handler: ChallengeHandler

    init(_ handler: @escaping ChallengeHandler) { self.handler = handler }

    static func == (lhs: HandlerIdentity, rhs: HandlerIdentity) -> Bool { lhs === rhs }

    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
