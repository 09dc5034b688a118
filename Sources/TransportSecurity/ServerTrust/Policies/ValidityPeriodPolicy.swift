import Foundation
import SwiftASN1
import X509

/// Every certificate of the path, anchor included, must be within its validity window at the
/// evaluation time. Reports ``TrustFailure/Code/expired`` and ``TrustFailure/Code/notYetValid``
/// separately, with the dates.
///
/// Certificates state their validity in whole seconds, so the evaluation time is compared at
/// that granularity: a certificate whose notAfter is 12:00:00 is still valid at 12:00:00.5.
public struct ValidityPeriodPolicy: FailureReportingPolicy {
    /// The time the validity windows are checked against.
    public let validationTime: Date

    /// No critical extensions are processed here.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [] }

    /// Creates the policy for a fixed time.
    public init(validationTime: Date) { self.validationTime = validationTime }

    /// One ``TrustFailure/Code/expired`` or ``TrustFailure/Code/notYetValid`` per certificate
    /// outside its validity window at ``validationTime``.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        let validationTime = Date(timeIntervalSince1970: validationTime.timeIntervalSince1970.rounded(.down))
        return path.compactMap { entry in
            let notValidBefore = entry.certificate.notValidBefore
            let notValidAfter = entry.certificate.notValidAfter
            if notValidAfter < validationTime {
                return TrustFailure(
                    .expired,
                    certificate: entry.subjectText,
                    detail: "expired on \(Self.format(notValidAfter)) (evaluated at \(Self.format(validationTime)))"
                )
            }
            if notValidBefore > validationTime {
                return TrustFailure(
                    .notYetValid,
                    certificate: entry.subjectText,
                    detail: "not valid before \(Self.format(notValidBefore)) (evaluated at \(Self.format(validationTime)))"
                )
            }
            return nil
        }
    }

    static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
