import SwiftASN1
import X509

/// When the leaf has an extended key usage extension, it must allow the TLS role it is used
/// for: `id-kp-serverAuth` for a server, `id-kp-clientAuth` for a client (or, for either,
/// `anyExtendedKeyUsage`).
public struct ExtendedKeyUsagePolicy: FailureReportingPolicy {
    /// The usage the leaf must allow.
    public let requiredUsage: ExtendedKeyUsage.Usage

    /// The extended key usage extension is processed here.
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [.X509ExtensionID.extendedKeyUsage]

    /// Creates the policy for a usage.
    public init(requiring usage: ExtendedKeyUsage.Usage) { self.requiredUsage = usage }

    /// TLS server authentication.
    public static let serverAuthentication = ExtendedKeyUsagePolicy(requiring: .serverAuth)

    /// TLS client authentication.
    public static let clientAuthentication = ExtendedKeyUsagePolicy(requiring: .clientAuth)

    public func failures(in chain: UnverifiedCertificateChain) -> [TrustFailure] {
        let leaf = chain.leaf
        let usages: ExtendedKeyUsage?
        do {
            usages = try leaf.extensions.extendedKeyUsage
        } catch {
            return [TrustFailure(.malformedCertificate, certificate: leaf.subjectText, detail: "has a malformed extended key usage extension: \(error)")]
        }
        guard let usages else { return [] }
        if usages.contains(requiredUsage) || usages.contains(.any) { return [] }
        let role = requiredUsage == .clientAuth ? "TLS clients" : "TLS servers"
        return [
            TrustFailure(
                .extendedKeyUsage,
                certificate: leaf.subjectText,
                detail: "is not for \(role): its extended key usage is \(usages) and lacks \(requiredUsage)"
            )
        ]
    }
}
