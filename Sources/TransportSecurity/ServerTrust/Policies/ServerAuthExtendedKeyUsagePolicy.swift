import SwiftASN1
import X509

/// When the leaf has an extended key usage extension, it must allow TLS server authentication
/// (`id-kp-serverAuth`, or `anyExtendedKeyUsage`).
public struct ServerAuthExtendedKeyUsagePolicy: FailureReportingPolicy {
    /// The extended key usage extension is processed here.
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [.X509ExtensionID.extendedKeyUsage]

    /// Creates the policy.
    public init() {}

    public func failures(in chain: UnverifiedCertificateChain) -> [TrustFailure] {
        let leaf = chain.leaf
        let usages: ExtendedKeyUsage?
        do {
            usages = try leaf.extensions.extendedKeyUsage
        } catch {
            return [TrustFailure(.malformedCertificate, certificate: leaf.subjectText, detail: "has a malformed extended key usage extension: \(error)")]
        }
        guard let usages else { return [] }
        if usages.contains(.serverAuth) || usages.contains(.any) { return [] }
        return [
            TrustFailure(
                .extendedKeyUsage,
                certificate: leaf.subjectText,
                detail: "is not for TLS servers: its extended key usage is \(usages) and lacks serverAuth"
            )
        ]
    }
}
