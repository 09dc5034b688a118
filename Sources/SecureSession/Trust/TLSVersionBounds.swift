import NIOSSL
import TransportSecurity
import TransportSecurityNIO

/// The TLS versions a session allows (``SecureSessionConfiguration/TLS/minimumTLSVersion`` and
/// ``SecureSessionConfiguration/TLS/maximumTLSVersion``), applied to every TLS configuration it
/// makes, on top of a host's transport rule.
struct TLSVersionBounds: Hashable, Sendable {
    /// The session's minimum; `nil`: TLS 1.2, or a host's rule's minimum.
    let minimum: TLSProtocolVersion?
    /// The session's maximum; `nil`: the newest BoringSSL speaks.
    let maximum: TLSProtocolVersion?

    init(minimum: TLSProtocolVersion?, maximum: TLSProtocolVersion?) {
        self.minimum = minimum
        self.maximum = maximum
    }

    init(_ configuration: SecureSessionConfiguration) {
        self.init(minimum: configuration.tls.minimumTLSVersion, maximum: configuration.tls.maximumTLSVersion)
    }

    /// Whether the session left both bounds as they are by default.
    var isDefault: Bool { minimum == nil && maximum == nil }

    /// The lowest version for a host under `ruleMinimum` (its rule's minimum, `nil` without a
    /// rule): the session's minimum may raise a rule's, never lower it; without a rule it is the
    /// session's, else TLS 1.2.
    func floor(underRuleMinimum ruleMinimum: TLSProtocolVersion?) -> TLSProtocolVersion {
        guard let ruleMinimum else { return minimum ?? .tls12 }
        return max(ruleMinimum, minimum ?? ruleMinimum)
    }

    /// Sets `configuration`'s versions for a host under `ruleMinimum`; a floor above the ceiling
    /// is refused, naming both.
    func apply(to configuration: inout TLSConfiguration, ruleMinimum: TLSProtocolVersion?) throws {
        let floor = floor(underRuleMinimum: ruleMinimum)
        if let maximum, maximum < floor {
            throw SecureSessionError.tlsFailure(
                "no TLS version is allowed: at least \(floor.displayName) (\(source(of: floor, ruleMinimum: ruleMinimum))) and at most \(maximum.displayName) (maximumTLSVersion)"
            )
        }
        configuration.minimumTLSVersion = floor.nioVersion
        configuration.maximumTLSVersion = maximum?.nioVersion
    }

    /// What set `floor`: the session's minimum, the host's rule, or the default.
    private func source(of floor: TLSProtocolVersion, ruleMinimum: TLSProtocolVersion?) -> String {
        if let minimum, minimum == floor { return "minimumTLSVersion" }
        return ruleMinimum == floor ? "the host's transport rule" : "the default minimum"
    }

    /// The versions allowed in words, for a failed negotiation: `TLS 1.3 and later`,
    /// `TLS 1.2 only`, `TLS 1.2 to TLS 1.3`.
    var allowedDescription: String {
        let floor = minimum ?? .tls12
        guard let maximum else { return "\(floor.displayName) and later" }
        return maximum == floor ? "\(floor.displayName) only" : "\(floor.displayName) to \(maximum.displayName)"
    }
}
