import Foundation
import PKIBuilder
import TransportSecurity

/// The trust lab as the engine sees it: DER chains, the lab's system store, the lab's clock.
struct LabFixture: Sendable {
    let lab: TrustLab
    let systemStore: TrustStore

    static let shared: LabFixture = {
        let lab = try! TrustLab()
        return LabFixture(lab: lab, systemStore: TrustStore(lab.systemRoots.map(\.der), origin: "lab system store"))
    }()

    var host: String { lab.host }
    var now: Date { lab.pki.now }

    func chain(_ server: TrustLab.Server) -> [DERCertificate] { lab.chain(server).map(\.der) }

    /// A server trust for `server`'s chain, evaluated against the lab's store at the lab's time.
    func trust(_ server: TrustLab.Server, policy: TrustValidationPolicy? = nil) -> ServerTrust {
        ServerTrust(chain: chain(server), policy: policy ?? .ssl(host), systemStore: systemStore, evaluationTime: now)
    }

    func trust(chain: [IssuedCertificate], host: String? = nil, anchors: [IssuedCertificate]? = nil) -> ServerTrust {
        ServerTrust(
            chain: chain.map(\.der),
            policy: .ssl(host ?? self.host),
            anchors: anchors?.map(\.der),
            systemStore: systemStore,
            evaluationTime: now
        )
    }
}
