import Foundation
import TransportSecurity
import TransportSecurityNIO

/// The one mapping of a failed TLS handshake to the error a request reports.
enum HandshakeFailure {
    /// Turns a failed handshake into the error the request reports: the rejected decision, a
    /// cancelled or rejected challenge, a transport rule's TLS requirements, or a TLS failure.
    static func throwing(
        _ error: any Error,
        key: ConnectionKey,
        decisions: VerifierDecisions,
        certificateChallenge: ClientCertificateChallenge?,
        reporter: PinFailureReporter?,
        versions: TLSVersionBounds
    ) throws -> Never {
        if let decision = decisions.last { reporter?.submitFailure(of: decision, under: key.rule, host: key.host, port: key.port) }
        if let error = error as? SecureSessionError { throw error }
        if let refusal = error as? ProxyTunnelHandler.Refusal { throw SecureSessionError.proxyFailure(refusal.description) }
        if let certificateChallenge, certificateChallenge.wasCancelled {
            throw SecureSessionError.challengeCancelled(certificateChallenge.space)
        }
        if let decision = decisions.last, !decision.isTrusted {
            let space = ProtectionSpace(host: key.host, port: key.port, isSecure: true, realm: nil, method: .serverTrust)
            switch decision.decider {
            case .challengeHandler(.cancelAuthenticationChallenge): throw SecureSessionError.challengeCancelled(space)
            case .challengeHandler(.rejectProtectionSpace): throw SecureSessionError.protectionSpaceRejected(space)
            default: throw SecureSessionError.trustRejected(decision)
            }
        }
        if let rule = key.rule, rule.enforcesATS, isNegotiationFailure(error) {
            throw SecureSessionError.refusedByTransportRules(
                host: key.host,
                reason: "the TLS handshake failed under the rule (from \(rule.originDescription)): TLS ≥ \(rule.minimumTLSVersion.displayName.dropFirst(4))"
                    + (rule.requiresForwardSecrecy ? " with forward-secret (ECDHE) suites" : "")
                    + " is required (\(TLSFailureText.describe(error))); NSExceptionMinimumTLSVersion or NSExceptionRequiresForwardSecrecy = false relax it"
            )
        }
        let presented = certificateChallenge?.presentedCertificate ?? (key.identity != nil)
        // A session that narrowed its TLS versions says so when none was agreed.
        let narrowed = !versions.isDefault && isNegotiationFailure(error) ? " (the session allows \(versions.allowedDescription): minimumTLSVersion, maximumTLSVersion)" : ""
        throw SecureSessionError.tlsFailure(
            "\(key): \(TLSFailureText.describe(error, clientCertificatePresented: presented, presentedIdentity: key.presentedIdentity))\(narrowed)"
        )
    }

    /// Whether a handshake error says that client and server share no protocol version or
    /// cipher suite (what a transport rule's TLS settings cause).
    static func isNegotiationFailure(_ error: any Error) -> Bool {
        let text = String(describing: error).uppercased()
        return ["UNSUPPORTED_PROTOCOL", "NO_SHARED_CIPHER", "PROTOCOL_VERSION", "WRONG_VERSION_NUMBER", "HANDSHAKE_FAILURE", "NO_CIPHERS_AVAILABLE"]
            .contains { text.contains($0) }
    }
}
