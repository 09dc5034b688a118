import SwiftASN1
import X509

/// The leaf's subjectAltName must name the host: a DNS name (wildcards in the left-most label,
/// as swift-certificates' `ServerIdentityPolicy` matches them) or an IP address.
///
/// Unlike the stock `ServerIdentityPolicy`, the subject's common name is never used: a leaf
/// without DNS or IP subjectAltName entries matches no host (CA/Browser Forum rules, RFC 9525).
public struct SubjectAltNameHostPolicy: FailureReportingPolicy {
    /// The host the client connected to.
    public let host: ServerHost
    private let identityPolicy: ServerIdentityPolicy

    /// The subjectAltName extension is processed here.
    public let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [.X509ExtensionID.subjectAlternativeName]

    /// Creates the policy for a host.
    public init(host: ServerHost) {
        self.host = host
        switch host {
        case .dnsName(let name): identityPolicy = ServerIdentityPolicy(serverHostname: name, serverIP: nil)
        case .ipAddress(let address): identityPolicy = ServerIdentityPolicy(serverHostname: nil, serverIP: address)
        }
    }

    public func failures(in chain: UnverifiedCertificateChain) -> [TrustFailure] {
        let leaf = chain.leaf
        let names: SubjectAlternativeNames
        do {
            names = try leaf.extensions.subjectAlternativeNames ?? SubjectAlternativeNames()
        } catch {
            return [TrustFailure(.malformedCertificate, certificate: leaf.subjectText, detail: "has a malformed subjectAltName extension: \(error)")]
        }
        let hasHostNames = names.contains { name in
            switch name {
            case .dnsName, .ipAddress: return true
            default: return false
            }
        }
        guard hasHostNames else {
            return [
                TrustFailure(
                    .hostnameMismatch,
                    certificate: leaf.subjectText,
                    detail: "has no DNS or IP subjectAltName, so it names no host (the common name is not used); expected \(host)"
                )
            ]
        }
        var identity = identityPolicy
        guard case .meetsPolicy = identity.chainMeetsPolicyRequirements(chain: chain) else {
            let presented = names.compactMap { name -> String? in
                switch name {
                case .dnsName(let dns): return dns
                case .ipAddress(let bytes): return Self.formatIPAddress(Array(bytes.bytes))
                default: return nil
                }
            }
            return [
                TrustFailure(
                    .hostnameMismatch,
                    certificate: leaf.subjectText,
                    detail: "is for \(presented.joined(separator: ", ")), not for \(host)"
                )
            ]
        }
        return []
    }

    static func formatIPAddress(_ bytes: [UInt8]) -> String {
        switch bytes.count {
        case 4: return bytes.map(String.init).joined(separator: ".")
        case 16:
            let groups = stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            return ServerHost(groups.joined(separator: ":")).name
        default: return "<\(bytes.count)-byte address>"
        }
    }
}
