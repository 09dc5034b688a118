import Foundation
import TransportSecurity
@_spi(FixedExpiryValidationTime) import X509

/// swift-certificates' verifier as it comes, `Verifier { RFC5280Policy; ServerIdentityPolicy }`,
/// for `tsec limbo --verifier stock`: the yardstick the engine's figures are compared with,
/// measured by the same harness on the same cases.
enum LimboStockVerifier {
    /// Whether the stock verifier accepts the case's chain.
    static func accepts(_ trust: ServerTrust) async -> Bool {
        guard let leaf = trust.chain.first else { return false }
        let time = trust.evaluationTime ?? Date()
        var hostname: String?
        var address: String?
        if case .ssl(let host?) = trust.policy {
            if host.isIPAddress { address = host.name } else { hostname = host.name }
        }
        let checksHost = hostname != nil || address != nil
        var verifier = Verifier(rootCertificates: CertificateStore((trust.anchors ?? []).map(\.certificate))) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            if checksHost {
                ServerIdentityPolicy(serverHostname: hostname, serverIP: address)
            }
        }
        let result = await verifier.validate(
            leaf: leaf.certificate,
            intermediates: CertificateStore(trust.chain.dropFirst().map(\.certificate))
        )
        if case .validCertificate = result { return true }
        return false
    }
}
