import Foundation
import TransportSecurity

extension SecureSession {
    /// `url` upgraded to https when its host is a known HSTS host (the caller's URL, or a
    /// redirect's, before it is judged).
    func upgradedByHSTS(_ url: URL) -> URL {
        guard let upgraded = configuration.features.hsts?.upgraded(url) else { return url }
        configuration.logger.debug("upgraded to https (HSTS)", metadata: ["url": "\(url.redacted)"])
        return upgraded
    }

    /// Whether a connection's server was trusted without reservation: a full validation passed
    /// and every check with it, so its `Strict-Transport-Security` may be believed (RFC 6797
    /// §8.1: not over a connection with errors, which a policy allowing invalid certificates or
    /// a challenge handler accepting the server may have let through; a man in the middle
    /// accepted that way must not be able to make the client forget a host).
    static func isCleanTLS(_ decision: TrustDecision?) -> Bool {
        guard let decision, decision.isTrusted, decision.lastEvaluation?.isTrusted == true else { return false }
        return decision.checks.allSatisfy(\.passed)
    }
}
