import SwiftASN1
import X509

/// When the leaf has an extended key usage extension, it must allow the TLS role it is used
/// for: `id-kp-serverAuth` for a server, `id-kp-clientAuth` for a client (or, for either,
/// `anyExtendedKeyUsage`). So must every intermediate that has one: a CA restricted to other
/// usages (e-mail protection, say) cannot issue TLS certificates, as browsers and Go enforce.
/// The anchor's usages are not checked.
public struct ExtendedKeyUsagePolicy: FailureReportingPolicy {
    /// The usage the leaf must allow.
    public let requiredUsage: ExtendedKeyUsage.Usage

    /// The extended key usage extension is processed here.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.extendedKeyUsage] }

    /// Creates the policy for a usage.
    public init(requiring usage: ExtendedKeyUsage.Usage) { self.requiredUsage = usage }

    /// TLS server authentication.
    public static let serverAuthentication = ExtendedKeyUsagePolicy(requiring: .serverAuth)

    /// TLS client authentication.
    public static let clientAuthentication = ExtendedKeyUsagePolicy(requiring: .clientAuth)

    /// One failure per certificate but the anchor (the leaf of a path of one is checked) whose
    /// extended key usages exclude the role
    /// (``TrustFailure/Code/extendedKeyUsage``) or do not decode
    /// (``TrustFailure/Code/malformedCertificate``).
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        let checked = path.count > 1 ? path.dropLast() : path[...]
        return checked.enumerated().compactMap { index, certificate in
            let usages: ExtendedKeyUsage?
            do {
                usages = try certificate.extendedKeyUsage()
            } catch {
                return TrustFailure(.malformedCertificate, certificate: certificate.subjectText, detail: "has a malformed extended key usage extension: \(error)")
            }
            guard let usages, !usages.contains(requiredUsage), !usages.contains(.any) else { return nil }
            let role = requiredUsage == .clientAuth ? "TLS clients" : "TLS servers"
            let what = index == 0 ? "is not for \(role)" : "is a CA that may not issue for \(role)"
            return TrustFailure(
                .extendedKeyUsage,
                certificate: certificate.subjectText,
                detail: "\(what): its extended key usage is \(usages) and lacks \(requiredUsage)"
            )
        }
    }
}
