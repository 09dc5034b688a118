import Foundation
import TransportSecurity

/// One testcase of C2SP's x509-limbo suite, as much of it as the harness reads: certificates,
/// CRLs, validation kind, time, peer name, EKU and maximum depth (never anything keyed by its id).
struct LimboCase: Decodable, Sendable {
    struct PeerName: Decodable, Sendable {
        let kind: String
        let value: String
    }

    let id: String
    let features: [String]?
    let validationKind: String
    let trustedCerts: [String]
    let untrustedIntermediates: [String]
    let peerCertificate: String
    let validationTime: String?
    let extendedKeyUsage: [String]?
    let expectedResult: String
    let expectedPeerName: PeerName?
    let maxChainDepth: Int?
    let crls: [String]?

    enum CodingKeys: String, CodingKey {
        case id, features
        case validationKind = "validation_kind"
        case trustedCerts = "trusted_certs"
        case untrustedIntermediates = "untrusted_intermediates"
        case peerCertificate = "peer_certificate"
        case validationTime = "validation_time"
        case extendedKeyUsage = "extended_key_usage"
        case expectedResult = "expected_result"
        case expectedPeerName = "expected_peer_name"
        case maxChainDepth = "max_chain_depth"
        case crls
    }

    /// The part of the id before `::`.
    var namespace: String { id.components(separatedBy: "::").first ?? id }

    /// Why the harness cannot run the case as asked, if it cannot.
    func unsupportedReason(skipping skipped: Set<String>) -> String? {
        if let feature = (features ?? []).first(where: skipped.contains) { return "feature \(feature) is skipped" }
        if let kind = expectedPeerName?.kind, kind != "DNS", kind != "IP" { return "peer names of kind \(kind) are not supported" }
        if validationKind != "SERVER", validationKind != "CLIENT" { return "validation kind \(validationKind) is not supported" }
        return nil
    }

    /// The server trust (or client trust) the case describes.
    ///
    /// The peer certificate must parse; an intermediate or root that swift-certificates cannot
    /// parse (an unsupported signature algorithm, say) is left out of its pool, as a path
    /// builder passes over a candidate it cannot use, and the other certificates still count.
    func trust() throws -> ServerTrust {
        func parse(_ pem: String) throws -> [DERCertificate] { try CertificateLoader.certificates(from: Array(pem.utf8), source: id) }
        func usable(_ pems: [String]) -> [DERCertificate] { pems.flatMap { (try? parse($0)) ?? [] } }
        let chain = try parse(peerCertificate) + usable(untrustedIntermediates)
        let policy: TrustValidationPolicy
        if validationKind == "CLIENT" {
            policy = .sslClient
        } else {
            policy = .ssl(host: expectedPeerName.map { ServerHost($0.value) })
        }
        var limits = PathBuildingLimits()
        // Limbo's depth counts the intermediates; a path also holds the leaf and the anchor.
        if let depth = maxChainDepth { limits.maximumPathLength = depth + 2 }
        return ServerTrust(
            chain: chain,
            policy: policy,
            anchors: usable(trustedCerts),
            anchorsOnly: true,
            systemStore: .empty,
            evaluationTime: try validationTime.map(Self.date) ?? Date(),
            limits: limits
        )
    }

    /// The case's CRLs. With any, every certificate of the path but the anchor must be shown
    /// unrevoked by one of them (``RevocationPolicy`` with CRLs only, no network, hard-fail).
    func revocationPolicy() throws -> RevocationPolicy? {
        guard let crls, !crls.isEmpty else { return nil }
        let lists = try crls.enumerated().map { index, pem throws(RevocationError) in
            try CertificateRevocationList(bytes: Array(pem.utf8), source: "crls[\(index)]")
        }
        return RevocationPolicy(options: [.crl, .networkAccessDisabled], failureMode: .hard, crls: lists)
    }

    static func date(_ text: String) throws -> Date {
        guard let date = Date(iso8601: text) else {
            throw TransportSecurityConfigurationError(source: "validation_time", reason: "'\(text)' is not an ISO 8601 time")
        }
        return date
    }
}

/// The whole limbo document.
struct LimboDocument: Decodable {
    let testcases: [LimboCase]
}
