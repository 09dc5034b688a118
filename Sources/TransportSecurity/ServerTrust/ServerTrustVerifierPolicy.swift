import Foundation
import SwiftASN1
@_spi(DisableValidityCheck) import X509

/// The policy a server-trust evaluation hands to swift-certificates' `Verifier`: RFC 5280 path
/// rules (version, basic constraints, name constraints) from swift-certificates, plus this
/// library's typed policies. It keeps every candidate path's failures, so that a failed
/// evaluation can say which path came closest and why it failed.
struct ServerTrustVerifierPolicy: VerifierPolicy {
    private let rfc5280 = RFC5280Policy.withValidityCheckDisabled()
    private let policies: [any FailureReportingPolicy]
    /// Keeps each candidate path's failures. A reference, because the verifier's policy builder
    /// hides the policy's concrete type once it is handed over.
    let state: PathBuildingState

    let verifyingCriticalExtensions: [ASN1ObjectIdentifier]

    init(validation: TrustValidationPolicy, time: Date, limits: PathBuildingLimits, state: PathBuildingState) {
        self.state = state
        var policies: [any FailureReportingPolicy] = [
            MaximumPathLengthPolicy(maximumLength: limits.maximumPathLength),
            ValidityPeriodPolicy(validationTime: time),
            IssuerKeyUsagePolicy(),
        ]
        switch validation {
        case .ssl(let host):
            policies.append(EndEntityLeafPolicy())
            policies.append(ExtendedKeyUsagePolicy.serverAuthentication)
            if let host { policies.append(SubjectAltNameHostPolicy(host: host)) }
        case .sslClient:
            policies.append(EndEntityLeafPolicy())
            policies.append(ExtendedKeyUsagePolicy.clientAuthentication)
        case .basicX509:
            break
        }
        self.policies = policies
        self.verifyingCriticalExtensions = Self.handledCriticalExtensions
    }

    /// RFC 5280's (basic constraints, name constraints, key usage), plus subjectAltName and
    /// extendedKeyUsage, which are understood under every validation policy: name constraints
    /// read the former, and the latter only restricts what a key may do.
    static let handledCriticalExtensions: [ASN1ObjectIdentifier] = [
        .X509ExtensionID.basicConstraints,
        .X509ExtensionID.nameConstraints,
        .X509ExtensionID.keyUsage,
        .X509ExtensionID.subjectAlternativeName,
        .X509ExtensionID.extendedKeyUsage,
    ]

    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) -> PolicyEvaluationResult {
        var failures = policies.flatMap { $0.failures(in: chain) }
        // A path of one is a leaf that is itself an anchor: it is trusted by identity, so the
        // issuer rules of RFC 5280 (which would demand that an anchor be a CA) do not apply.
        if chain.count > 1, case .failsToMeetPolicy(let reason) = rfc5280.chainMeetsPolicyRequirements(chain: chain) {
            failures.append(TrustFailure(.constraintViolation, detail: reason.description))
        }
        state.record(failures)
        guard failures.isEmpty else {
            let reason = failures.map(\.description).joined(separator: "; ")
            return .failsToMeetPolicy(reason: reason)
        }
        return .meetsPolicy
    }
}
