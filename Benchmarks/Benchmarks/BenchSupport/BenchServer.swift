import LabServers
import NIOCore
import NIOPosix
import NIOSSL
import PKIBuilder
import TransportSecurity
import TransportSecurityNIO

/// The key algorithms of a three-certificate chain: the root's, the intermediate's, the leaf's.
public struct ChainShape: Sendable {
    public let name: String
    public let root: KeyAlgorithm
    public let intermediate: KeyAlgorithm
    public let leaf: KeyAlgorithm

    /// Every key P-256, every signature ECDSA with SHA-256: the cheapest chain to verify.
    public static let allP256 = ChainShape(name: "P-256 chain", root: .p256, intermediate: .p256, leaf: .p256)
    /// The shape of Let's Encrypt's ECDSA chains (ISRG Root X2 → E5…E9 → leaf) and of other web
    /// ECDSA hierarchies: P-384 root and intermediate signing with SHA-384, a P-256 leaf.
    public static let webECDSA = ChainShape(name: "P-384/P-384/P-256 chain", root: .p384, intermediate: .p384, leaf: .p256)
}

/// The PKI every session benchmark uses: a root, an intermediate and a leaf for 127.0.0.1, valid
/// now (swift-nio-ssl's and AsyncHTTPClient's default verification read the real clock).
public struct BenchPKI: Sendable {
    public let root: IssuedCertificate
    public let serverIdentity: ClientIdentity
    public let chain: [IssuedCertificate]

    public init(shape: ChainShape = .allP256) throws {
        let pki = PKI(now: .now)
        root = try pki.issueRoot(.certificateAuthority("Bench Root"), algorithm: shape.root)
        let intermediate = try pki.issue(.certificateAuthority("Bench CA"), by: root, algorithm: shape.intermediate)
        let leaf = try pki.issue(
            .server("bench", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]),
            by: intermediate,
            algorithm: shape.leaf
        )
        chain = [leaf, intermediate]
        serverIdentity = try ClientIdentity(certificateChainPEM: chain.pemBundle, privateKeyPEM: leaf.privateKeyPEM)
    }

    /// The root, for swift-nio-ssl's trust roots.
    public var rootForNIO: NIOSSLCertificate { try! NIOSSLCertificate(bytes: root.der.derBytes, format: .der) }
}

/// The lab's HTTPS/1.1 keep-alive server answering `hello`, on an event loop of its own so that
/// clients measured against it share the same conditions.
public func startBenchServer(pki: BenchPKI, http2: Bool = false) async throws -> LabHTTPSServer {
    try await LabHTTPSServer.start(chain: pki.chain, page: "hello", group: MultiThreadedEventLoopGroup(numberOfThreads: 1), http2: http2)
}
