#if GRPC
import Foundation
import PKIBuilder
import TransportSecurity
import TransportSecurityNIO

/// A mesh CA and two workloads with SPIFFE IDs in different namespaces.
struct Mesh {
    let root: IssuedCertificate
    let checkout: IssuedCertificate
    let batch: IssuedCertificate

    init(_ lab: TrustLab) throws {
        root = try lab.pki.issueRoot(.certificateAuthority("Mesh Root"))
        checkout = try lab.pki.issue(.client("checkout", uris: ["spiffe://payments.example/ns/checkout/sa/api"]), by: root)
        batch = try lab.pki.issue(.client("batch", uris: ["spiffe://payments.example/ns/batch/sa/job"]), by: root)
    }

    /// A verifier of clients: certificates from the mesh root carrying an allowed name, at `lab`'s time.
    func clientVerifier(_ lab: TrustLab, allowing patterns: [String]) throws -> PeerTrustVerifier {
        PeerTrustVerifier(
            evaluator: ClientCertificateEvaluator(clientCAs: [root.der], allowedNames: try patterns.map(PeerNamePattern.init)),
            host: "clients",
            systemStore: .empty,
            evaluationTime: lab.pki.now,
            cache: nil
        )
    }
}

extension TrustLab {
    /// A verifier of the lab's servers: `policy` against the lab's system store, at the lab's time.
    func serverVerifier(_ policy: SecurityPolicy = .default) -> PeerTrustVerifier {
        PeerTrustVerifier(
            evaluator: policy,
            host: host,
            systemStore: TrustStore(systemRoots.map(\.der), origin: "lab system store"),
            evaluationTime: pki.now,
            cache: nil
        )
    }
}

/// `chain` (leaf first) with the leaf's key, as an identity.
func identity(_ chain: [IssuedCertificate]) throws -> ClientIdentity {
    try ClientIdentity(certificateChainPEM: chain.pemBundle, privateKeyPEM: chain[0].privateKeyPEM)
}

/// A new folder holding one identity's files (`chain.pem`, `key.pem`), rewritten as a renewal
/// writes them.
struct IdentityFolder {
    let path = NSTemporaryDirectory() + "tsec-grpc-identity-\(UUID().uuidString)"

    init() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `chain` and its leaf's key.
    func install(_ chain: [IssuedCertificate]) throws {
        try chain.pemBundle.write(toFile: "\(path)/chain.pem", atomically: true, encoding: .utf8)
        try chain[0].privateKeyPEM.write(toFile: "\(path)/key.pem", atomically: true, encoding: .utf8)
    }

    /// The files as a ``ClientIdentityFile`` reloaded only when asked.
    func identityFile() throws -> ClientIdentityFile {
        try ClientIdentityFile(certificateFile: "\(path)/chain.pem", privateKeyFile: "\(path)/key.pem", checkInterval: .seconds(3600))
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
#endif
