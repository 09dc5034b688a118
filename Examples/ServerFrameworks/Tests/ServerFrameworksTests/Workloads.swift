import Foundation
import NIOSSL
import PKIBuilder
import SecureSession
import Synchronization
import Testing
import TransportSecurity
import TransportSecurityNIO

/// A partner's server certificate, and a mesh CA with two workloads in different namespaces: the
/// servers let `checkout` in and refuse `batch`. Made at test time on PKIBuilder's fixed clock.
struct Workloads {
    let pki = PKI()
    let serverRoot: IssuedCertificate
    let server: IssuedCertificate
    let meshCA: IssuedCertificate
    let checkout: IssuedCertificate
    let batch: IssuedCertificate

    init() throws {
        serverRoot = try pki.issueRoot(.certificateAuthority("Partner Root"))
        server = try pki.issue(.server("localhost", ipAddresses: ["127.0.0.1"]), by: serverRoot)
        meshCA = try pki.issueRoot(.certificateAuthority("Mesh CA"))
        checkout = try pki.issue(.client("checkout", uris: ["spiffe://payments.example/ns/checkout/sa/api"]), by: meshCA)
        batch = try pki.issue(.client("batch", uris: ["spiffe://payments.example/ns/batch/sa/job"]), by: meshCA)
    }

    /// The server's certificate and key.
    var serverIdentity: ClientIdentity {
        get throws { try ClientIdentity(certificateChainPEM: server.pemString, privateKeyPEM: server.privateKeyPEM) }
    }

    /// The servers' verifier: certificates from the mesh CA naming a checkout workload, at the
    /// PKI's time.
    var verifier: PeerTrustVerifier {
        get throws {
            PeerTrustVerifier(
                evaluator: ClientCertificateEvaluator(clientCAs: [meshCA.der], allowedNames: [try PeerNamePattern("spiffe://payments.example/ns/checkout/*")]),
                host: "clients",
                systemStore: .empty,
                evaluationTime: pki.now,
                cache: nil
            )
        }
    }

    /// `GET https://127.0.0.1:PORT/whoami` presenting `workload`'s certificate, the server's
    /// certificate validated to the partner root at the PKI's time: the body, or the error.
    func whoami(port: Int, as workload: IssuedCertificate) async -> Result<String, any Error> {
        let session = SecureSession(configuration: SecureSessionConfiguration(
            tls: .init(
                trustEvaluator: SecurityPolicy.default,
                clientIdentity: try? ClientIdentity(certificateChainPEM: workload.pemString, privateKeyPEM: workload.privateKeyPEM),
                systemStore: TrustStore([serverRoot.der], origin: "partner root"),
                evaluationTime: pki.now
            )
        ))
        let result: Result<String, any Error>
        do {
            result = .success(try await session.get(URL(string: "https://127.0.0.1:\(port)/whoami")!).text)
        } catch {
            result = .failure(error)
        }
        await session.shutdown()
        return result
    }
}

/// Counts the requests that reach a route.
final class Visits: Sendable {
    private let count = Mutex(0)
    func record() { count.withLock { $0 += 1 } }
    var total: Int { count.withLock { $0 } }
}
