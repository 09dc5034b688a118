import Foundation
import SwiftASN1
@_spi(DisableValidityCheck) import X509

/// The policy a server-trust evaluation hands to swift-certificates' `Verifier` (which builds
/// the candidate paths and checks their signatures): this library's typed policies, one rule
/// each, covering RFC 5280's path rules (version, basic constraints, name constraints, key
/// usage, validity) and the web PKI's stricter profile. It keeps every candidate path's
/// failures, so that a failed evaluation can say which path came closest and why it failed.
struct ServerTrustVerifierPolicy: VerifierPolicy {
    private let policies: [any FailureReportingPolicy]
    /// Keeps each candidate path's failures. A reference, because the verifier's policy builder
    /// hides the policy's concrete type once it is handed over.
    let state: PathBuildingState

    let verifyingCriticalExtensions: [ASN1ObjectIdentifier]

    init(
        validation: TrustValidationPolicy,
        time: Date,
        limits: PathBuildingLimits,
        options: TrustEvaluationOptions = .default,
        state: PathBuildingState
    ) {
        self.state = state
        var policies: [any FailureReportingPolicy] = [
            MaximumPathLengthPolicy(maximumLength: limits.maximumPathLength),
            ValidityPeriodPolicy(validationTime: time),
            options.insecurelyAllowsSHA1Signatures ? SignatureHashPolicy.insecurelyAllowingSHA1 : SignatureHashPolicy.standard,
        ]
        policies.append(contentsOf: Self.profilePolicies)
        switch validation {
        case .ssl(let host):
            policies.append(NameConstraintsPolicy(host: host))
            policies.append(EndEntityLeafPolicy())
            policies.append(ExtendedKeyUsagePolicy.serverAuthentication)
            policies.append(CommonNamePolicy())
            if let host { policies.append(SubjectAltNameHostPolicy(host: host, publicSuffixes: options.publicSuffixes)) }
        case .sslClient:
            policies.append(NameConstraintsPolicy(host: nil))
            policies.append(EndEntityLeafPolicy())
            policies.append(ExtendedKeyUsagePolicy.clientAuthentication)
        case .basicX509:
            policies.append(NameConstraintsPolicy(host: nil))
        }
        self.policies = policies
        self.verifyingCriticalExtensions = Self.handledCriticalExtensions
    }

    /// The policies that depend on neither the time, the host nor the limits: made once.
    private static let profilePolicies: [any FailureReportingPolicy] = [
        CertificateVersionPolicy(),
        IssuerBasicConstraintsPolicy(),
        IssuerKeyUsagePolicy(),
        KeyIdentifierPolicy(),
        SubjectNamePolicy(),
        SubjectAltNameSyntaxPolicy(),
        SerialNumberPolicy(),
        AuthorityInformationAccessPolicy(),
        PublicKeySizePolicy(),
    ]

    /// Basic constraints, name constraints, key usage, subjectAltName and extendedKeyUsage, which
    /// are understood under every validation policy: name constraints read subjectAltName, and
    /// extendedKeyUsage only restricts what a key may do.
    static let handledCriticalExtensions: [ASN1ObjectIdentifier] = [
        .X509ExtensionID.basicConstraints,
        .X509ExtensionID.nameConstraints,
        .X509ExtensionID.keyUsage,
        .X509ExtensionID.subjectAlternativeName,
        .X509ExtensionID.extendedKeyUsage,
    ]

    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        let path = CertificatePath(chain)
        let failures = policies.flatMap { $0.failures(in: path) }
        state.record(failures)
        guard failures.isEmpty else {
            let reason = failures.map(\.description).joined(separator: "; ")
            return .failsToMeetPolicy(reason: reason)
        }
        return .meetsPolicy
    }
}
