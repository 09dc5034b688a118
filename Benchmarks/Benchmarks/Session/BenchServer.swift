import LabServers
import NIOCore
import NIOPosix
import NIOSSL
import PKIBuilder
import TransportSecurity
import TransportSecurityNIO

/// The PKI every session benchmark uses: a root, an intermediate and a leaf for 127.0.0.1, valid
/// now (swift-nio-ssl's and AsyncHTTPClient's default verification read the real clock).
struct BenchPKI: Sendable {
    let root: IssuedCertificate
    let serverIdentity: ClientIdentity
    let chain: [IssuedCertificate]

    init() throws {
        let pki = PKI(now: .now)
        root = try pki.issueRoot(.certificateAuthority("Bench Root"))
        let intermediate = try pki.issue(.certificateAuthority("Bench CA"), by: root)
        let leaf = try pki.issue(.server("bench", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]), by: intermediate)
        chain = [leaf, intermediate]
        serverIdentity = try ClientIdentity(certificateChainPEM: chain.pemBundle, privateKeyPEM: leaf.privateKeyPEM)
    }

    /// The root, for swift-nio-ssl's trust roots.
    var rootForNIO: NIOSSLCertificate { try! NIOSSLCertificate(bytes: root.der.derBytes, format: .der) }
}

/// The lab's HTTPS/1.1 keep-alive server answering `hello`, on an event loop of its own so that
/// clients measured against it share the same conditions.
func startBenchServer(pki: BenchPKI) async throws -> LabHTTPSServer {
    try await LabHTTPSServer.start(chain: pki.chain, page: "hello", group: MultiThreadedEventLoopGroup(numberOfThreads: 1))
}
