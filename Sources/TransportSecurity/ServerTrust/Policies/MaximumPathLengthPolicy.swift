import SwiftASN1
import X509

/// A path may hold at most ``maximumLength`` certificates, leaf and anchor included; a
/// self-issued intermediate (a CA re-keying under its own name) does not count, as it adds no
/// new authority.
public struct MaximumPathLengthPolicy: FailureReportingPolicy {
    /// The most certificates a path may hold.
    public let maximumLength: Int

    /// No critical extensions are processed here.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [] }

    /// Creates the policy.
    public init(maximumLength: Int) { self.maximumLength = maximumLength }

    /// A ``TrustFailure/Code/pathTooLong`` when the path, less its self-issued intermediates, holds
    /// more than ``maximumLength`` certificates.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        let selfIssuedIntermediates = path.dropFirst().dropLast().filter(\.isSelfIssued).count
        guard path.count - selfIssuedIntermediates > maximumLength else { return [] }
        return [
            TrustFailure(
                .pathTooLong,
                certificate: path.leaf.subjectText,
                detail: "the path to \(path.last.map(\.subjectText) ?? "the anchor") has \(path.count) certificates; at most \(maximumLength) are allowed"
            )
        ]
    }
}
