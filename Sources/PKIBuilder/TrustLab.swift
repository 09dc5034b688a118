import Foundation
import X509

/// The certificates of the attack lab's servers (legitimate, intercepting, self-signed, wrong host, expired, not yet valid, re-issued), generated at run time on a fixed clock.
///
/// A legitimate CA (root → intermediate → leaf for ``host``), a user-installed proxy root that
/// the lab's system store trusts (a man in the middle such as Charles or mitmproxy), a rogue root
/// nobody trusts, and the server certificates built from them. ``systemRoots`` is what the lab
/// treats as the machine's trust store.
public struct TrustLab: Sendable {
    /// The servers of the lab.
    public enum Server: String, Sendable, CaseIterable, Codable {
        /// A CA-issued chain for the host.
        case legitimate
        /// A man in the middle whose root is in the system store (a user-installed proxy root).
        case interceptingProxy
        /// A man in the middle whose root nobody trusts.
        case untrustedRoot
        /// A self-signed certificate for the host.
        case selfSigned
        /// A CA-issued certificate for another host.
        case wrongHost
        /// The legitimate key in a certificate that has expired.
        case expired
        /// The legitimate key in a certificate that is not valid yet.
        case notYetValid
        /// The legitimate leaf re-issued with the same key.
        case reissuedSameKey
        /// The legitimate leaf re-issued with a new key.
        case reissuedNewKey
        /// An attacker's own self-signed leaf for the host, followed by the genuine leaf,
        /// intermediate and root: the handshake proves only the attacker's key, so no pin on
        /// the genuine certificates may match (AFNetworking's configuration 6 did).
        case appendedGenuineChain

        /// A short label for tables.
        public var label: String {
            switch self {
            case .legitimate: return "legit"
            case .interceptingProxy: return "mitm-trusted"
            case .untrustedRoot: return "mitm-untrusted"
            case .selfSigned: return "self-signed"
            case .wrongHost: return "wrong-host"
            case .expired: return "expired"
            case .notYetValid: return "not-yet-valid"
            case .reissuedSameKey: return "reissue-same-key"
            case .reissuedNewKey: return "reissue-new-key"
            case .appendedGenuineChain: return "appended-genuine"
            }
        }
    }

    /// The PKI (and its clock) the lab was made with.
    public let pki: PKI
    /// The host every server claims to be.
    public let host: String
    /// The legitimate root CA.
    public let root: IssuedCertificate
    /// The legitimate intermediate CA.
    public let intermediate: IssuedCertificate
    /// The legitimate server certificate.
    public let leaf: IssuedCertificate
    /// The proxy's root, which the lab's system store trusts.
    public let proxyRoot: IssuedCertificate
    /// A root nobody trusts.
    public let rogueRoot: IssuedCertificate
    /// The self-signed server certificate.
    public let selfSigned: IssuedCertificate
    /// The attacker's own self-signed leaf for the host, which ``Server/appendedGenuineChain``
    /// presents before the genuine chain.
    public let attackerLeaf: IssuedCertificate
    /// What each server presents, leaf first (roots are sent only by
    /// ``Server/appendedGenuineChain``, after the attacker's leaf).
    public let chains: [Server: [IssuedCertificate]]

    /// Generates the lab.
    /// - Parameters:
    ///   - pki: The PKI to issue with; its clock is the lab's "now".
    ///   - host: The name the servers claim.
    ///   - algorithm: The key type of the legitimate hierarchy.
    public init(pki: PKI = PKI(), host: String = "api.example.test", algorithm: KeyAlgorithm = .p256) throws {
        self.pki = pki
        self.host = host
        root = try pki.issueRoot(.certificateAuthority("TransportSecurity Lab Root CA"), algorithm: algorithm)
        intermediate = try pki.issue(.certificateAuthority("TransportSecurity Lab Issuing CA", pathLength: 0), by: root, algorithm: algorithm)
        leaf = try pki.issue(.server(host), by: intermediate, algorithm: algorithm)
        proxyRoot = try pki.issueRoot(.certificateAuthority("Intercepting Proxy CA (user-installed)"))
        rogueRoot = try pki.issueRoot(.certificateAuthority("Rogue Root CA"))
        selfSigned = try pki.issueSelfSigned(.server(host))
        attackerLeaf = try pki.issueSelfSigned(.server(host))

        let day = PKI.day
        let expired = try pki.issue(.server(host).valid(from: -400 * day, until: -10 * day), by: intermediate, key: leaf.keyPair)
        let notYetValid = try pki.issue(.server(host).valid(from: 10 * day, until: 400 * day), by: intermediate, key: leaf.keyPair)
        chains = [
            .legitimate: [leaf, intermediate],
            .interceptingProxy: [try pki.issue(.server(host), by: proxyRoot)],
            .untrustedRoot: [try pki.issue(.server(host), by: rogueRoot)],
            .selfSigned: [selfSigned],
            .wrongHost: [try pki.issue(.server("other.example.test"), by: intermediate), intermediate],
            .expired: [expired, intermediate],
            .notYetValid: [notYetValid, intermediate],
            .reissuedSameKey: [try pki.reissue(leaf, by: intermediate, newKey: false), intermediate],
            .reissuedNewKey: [try pki.reissue(leaf, by: intermediate, newKey: true), intermediate],
            .appendedGenuineChain: [attackerLeaf, leaf, intermediate, root],
        ]
    }

    /// The roots the lab's system store holds: the legitimate root and the proxy's root.
    public var systemRoots: [IssuedCertificate] { [root, proxyRoot] }

    /// What `server` presents, leaf first.
    public func chain(_ server: Server) -> [IssuedCertificate] { chains[server] ?? [] }
}
