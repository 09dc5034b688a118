import PKIBuilder
import TransportSecurity

/// One row of the demo matrix: a configuration of a security policy (or a pin set) with the outcome the policy's rules
/// expects against each lab server.
struct DemoConfiguration: Sendable {
    let name: String
    let summary: String
    let evaluator: AnyServerTrustEvaluator
    /// The servers the policy's rules let through with this configuration; every other server is blocked.
    let expectedAllowed: Set<TrustLab.Server>
    /// Whether a chain that does not validate is refused: false where `allowInvalidCertificates`
    /// lets key pinning (or nothing) decide, so a CA key is matched on the server's word.
    var validatesChain = true

    /// The rows: the ten configurations (3 and 6 with domain validation on and off), pinning the
    /// leaf and, for the pinning modes, the root; and an SPKI pin set with a backup pin.
    static func all(for lab: TrustLab) -> [DemoConfiguration] {
        let leaf = lab.leaf.der
        let root = lab.root.der
        func policy(_ mode: SSLPinningMode, _ pin: DERCertificate?, ac: Bool, vd: Bool) -> AnyServerTrustEvaluator {
            AnyServerTrustEvaluator(
                SecurityPolicy(pinningMode: mode, pinnedCertificates: pin.map { [$0] } ?? [], allowInvalidCertificates: ac, validatesDomainName: vd)
            )
        }
        let valid: Set<TrustLab.Server> = [.legitimate, .reissuedSameKey, .reissuedNewKey]
        let sameKey: Set<TrustLab.Server> = [.legitimate, .reissuedSameKey]
        let backupPin = SPKIPin(subjectPublicKeyInfoDER: Array("backup key kept offline".utf8))
        return [
            DemoConfiguration(name: "1 none", summary: "system trust + host (default)", evaluator: policy(.none, nil, ac: false, vd: true), expectedAllowed: valid.union([.interceptingProxy])),
            DemoConfiguration(name: "2 none, no host", summary: "system trust, any host", evaluator: policy(.none, nil, ac: false, vd: false), expectedAllowed: valid.union([.interceptingProxy, .wrongHost])),
            DemoConfiguration(name: "3 none, AC, VD", summary: "rejects everything (rule 1)", evaluator: policy(.none, nil, ac: true, vd: true), expectedAllowed: []),
            DemoConfiguration(name: "3 none, AC", summary: "accepts everything", evaluator: policy(.none, nil, ac: true, vd: false), expectedAllowed: Set(TrustLab.Server.allCases), validatesChain: false),
            DemoConfiguration(name: "4 key:leaf", summary: "system trust + host + leaf key", evaluator: policy(.publicKey, leaf, ac: false, vd: true), expectedAllowed: sameKey),
            DemoConfiguration(name: "4 key:root", summary: "system trust + host + root key", evaluator: policy(.publicKey, root, ac: false, vd: true), expectedAllowed: valid),
            DemoConfiguration(name: "5 key:leaf, no host", summary: "as 4 without host", evaluator: policy(.publicKey, leaf, ac: false, vd: false), expectedAllowed: sameKey),
            DemoConfiguration(name: "5 key:root, no host", summary: "as 4 without host", evaluator: policy(.publicKey, root, ac: false, vd: false), expectedAllowed: valid.union([.wrongHost])),
            DemoConfiguration(
                name: "6 key:leaf, AC", summary: "only the leaf key", evaluator: policy(.publicKey, leaf, ac: true, vd: true),
                expectedAllowed: sameKey.union([.expired, .notYetValid]), validatesChain: false
            ),
            DemoConfiguration(name: "6 key:root, AC", summary: "only the root key", evaluator: policy(.publicKey, root, ac: true, vd: true), expectedAllowed: valid, validatesChain: false),
            DemoConfiguration(name: "7 cert:leaf", summary: "system trust, then pinned leaf", evaluator: policy(.certificate, leaf, ac: false, vd: true), expectedAllowed: [.legitimate]),
            DemoConfiguration(name: "7 cert:root", summary: "system trust, then pinned root", evaluator: policy(.certificate, root, ac: false, vd: true), expectedAllowed: valid),
            DemoConfiguration(name: "8 cert:leaf, no host", summary: "as 7 without host", evaluator: policy(.certificate, leaf, ac: false, vd: false), expectedAllowed: [.legitimate]),
            DemoConfiguration(name: "8 cert:root, no host", summary: "as 7 without host", evaluator: policy(.certificate, root, ac: false, vd: false), expectedAllowed: valid.union([.wrongHost])),
            DemoConfiguration(name: "9 cert:leaf, AC", summary: "pinned leaf as only anchor", evaluator: policy(.certificate, leaf, ac: true, vd: true), expectedAllowed: [.legitimate]),
            DemoConfiguration(name: "9 cert:root, AC", summary: "pinned root as only anchor", evaluator: policy(.certificate, root, ac: true, vd: true), expectedAllowed: valid),
            DemoConfiguration(name: "10 cert:leaf, AC, no host", summary: "as 9 without host", evaluator: policy(.certificate, leaf, ac: true, vd: false), expectedAllowed: [.legitimate]),
            DemoConfiguration(name: "10 cert:root, AC, no host", summary: "as 9 without host", evaluator: policy(.certificate, root, ac: true, vd: false), expectedAllowed: valid.union([.wrongHost])),
            DemoConfiguration(
                name: "pin set leaf+backup",
                summary: "SPKI pins with a backup pin",
                evaluator: AnyServerTrustEvaluator(PublicKeysTrustEvaluator(pins: [leaf.spkiPin, backupPin])),
                expectedAllowed: sameKey
            ),
        ]
    }
}
