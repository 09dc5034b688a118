import SwiftASN1
import X509

/// Every issued certificate of the path (all but the anchor) has a non-zero serial number of at
/// most 20 octets (RFC 5280 §4.1.2.2). (swift-certificates refuses negative serial numbers
/// when it parses a certificate.)
///
/// A path of one (a leaf that is itself the anchor) is trusted by identity and not checked.
public struct SerialNumberPolicy: FailureReportingPolicy {
    /// No critical extensions are processed here.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [] }

    /// Creates the policy.
    public init() {}

    /// One ``TrustFailure/Code/misissued`` per issued certificate whose serial number is zero or
    /// longer than 20 octets; nothing for a path of one.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        guard path.count > 1 else { return [] }
        return path.dropLast().compactMap { certificate in
            let bytes = certificate.certificate.serialNumber.bytes
            let problem: String
            if bytes.count > 20 {
                problem = "is \(bytes.count) octets long; at most 20 are allowed"
            } else if bytes.allSatisfy({ $0 == 0 }) {
                problem = "is zero"
            } else {
                return nil
            }
            return TrustFailure(.misissued, certificate: certificate.subjectText, detail: "its serial number \(problem) (RFC 5280 §4.1.2.2)")
        }
    }
}
