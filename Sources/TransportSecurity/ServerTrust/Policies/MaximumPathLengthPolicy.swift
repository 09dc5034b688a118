import SwiftASN1
import X509

/// A path may hold at most ``maximumLength`` certificates, leaf and anchor included; a
/// self-issued intermediate (a CA re-keying under its own name) does not count, as it adds no
/// new authority.
public struct MaximumPathLengthPolicy: FailureReportingPolicy {
    /// The most certificates a path may hold.
    public let maximumLength: Int

    /// No critical extensions are processed here.
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    /// Creates the policy.
    public init(maximumLength: Int) { self.maximumLength = maximumLength }

    public func failures(in chain: UnverifiedCertificateChain) -> [TrustFailure] {
        let selfIssuedIntermediates = chain.dropFirst().dropLast().filter { $0.issuer == $0.subject }.count
        guard chain.count - selfIssuedIntermediates > maximumLength else { return [] }
        return [
            TrustFailure(
                .pathTooLong,
                certificate: chain.leaf.subjectText,
                detail: "the path to \(chain.last.map(\.subjectText) ?? "the anchor") has \(chain.count) certificates; at most \(maximumLength) are allowed"
            )
        ]
    }
}
