import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

/// README's quick starts (a) and (b), their configurations as README writes them (the lab's
/// fixed evaluation time and address overrides added), against servers that play the partner
/// and the attackers: what README promises each one lets through and stops.
@Suite("README's quick starts against the lab")
struct ReadmeQuickStartTests {
    let lab = try! TrustLab()

    /// Connects `api.example.test:port` to 127.0.0.1, as the partner's DNS would.
    func partner(_ port: Int) -> AddressOverride { AddressOverride(host: "api.example.test", port: port, address: "127.0.0.1") }

    @Test("(a): the pinned key and its backup let the partner through; an intercepting proxy trusted by the system is refused with the pins seen and expected, before anything is sent")
    func pinnedPartner() async throws {
        let genuine = try await HTTPTestServer(chain: lab.chain(.legitimate))
        let proxy = try await HTTPTestServer(chain: lab.chain(.interceptingProxy))
        defer { Task { await genuine.stop(); await proxy.stop() } }
        let backup = SPKIPin(subjectPublicKeyInfoDER: Array("a key kept offline".utf8))
        let session = SecureSession(configuration: SecureSessionConfiguration(
            baseURL: URL(string: "https://api.example.test:\(genuine.port)/")!,
            tls: .init(
                trustEvaluator: PublicKeysTrustEvaluator(pins: [lab.root.der.spkiPin, backup]),
                systemStore: TrustStore(lab.systemRoots.map(\.der), origin: "system roots with a user-installed proxy root"),
                evaluationTime: lab.pki.now
            ),
            connections: .init(addressOverrides: [partner(genuine.port), partner(proxy.port)])
        ))
        defer { Task { await session.shutdown() } }

        #expect(try await session.get("hello").text == "hello")
        let error = await #expect(throws: SecureSessionError.self) {
            try await session.get(URL(string: "https://api.example.test:\(proxy.port)/collect")!)
        }
        #expect(error?.code == .trustRejected)
        let mismatch = try #require(error?.trustDecision?.pinMismatch)
        #expect(Set(mismatch.expected.map(\.pin)) == [lab.root.der.spkiPin, backup])
        #expect(proxy.collected.all.isEmpty, "nothing reached the proxy")
    }

    @Test("(b): the partner's CA as the only root and its certificate pinned, a .p12 made by openssl presented: the partner answers; a publicly trusted chain and a partner certificate for another name are refused")
    func mutualTLSWithThePartnersCA() async throws {
        let partnerCA = try lab.pki.issueRoot(.certificateAuthority("Partner CA"))
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Partner's client CA"))
        let client = try lab.pki.issue(.client("our-service"), by: clientCA)
        let clients = PeerTrustVerifier.clients(of: clientCA, at: lab.pki.now)
        let partner = try await HTTPTestServer(chain: [try lab.pki.issue(.server("api.example.test"), by: partnerCA)], clientVerifier: clients)
        let publicCA = try await HTTPTestServer(chain: lab.chain(.legitimate), clientVerifier: clients)
        let otherName = try await HTTPTestServer(chain: [try lab.pki.issue(.server("other.example.test"), by: partnerCA)], clientVerifier: clients)
        defer { Task { await partner.stop(); await publicCA.stop(); await otherName.stop() } }

        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("readme-b-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = { (name: String) in (folder as NSString).appendingPathComponent(name) }
        try partnerCA.pemString.write(toFile: file("ca.pem"), atomically: true, encoding: .utf8)
        try client.pemString.write(toFile: file("client.crt"), atomically: true, encoding: .utf8)
        try client.privateKeyPEM.write(toFile: file("client.key"), atomically: true, encoding: .utf8)
        _ = try shell("openssl pkcs12 -export -in '\(file("client.crt"))' -inkey '\(file("client.key"))' -out '\(file("client.p12"))' -passout pass:s3cret")

        // As README writes it.
        let partnerCerts = try CertificateLoader.certificates(atPath: file("ca.pem"))
        let session = SecureSession(configuration: SecureSessionConfiguration(
            tls: .init(
                trustEvaluator: SecurityPolicy(pinningMode: .certificate, pinnedCertificates: partnerCerts),
                clientIdentity: try ClientIdentity(pkcs12File: file("client.p12"), passphrase: "s3cret"),
                systemStore: TrustStore(partnerCerts, origin: "partner CA"),
                evaluationTime: lab.pki.now
            ),
            connections: .init(addressOverrides: [
                AddressOverride(host: "api.example.test", port: partner.port, address: "127.0.0.1"),
                AddressOverride(host: "api.example.test", port: publicCA.port, address: "127.0.0.1"),
                AddressOverride(host: "api.example.test", port: otherName.port, address: "127.0.0.1"),
            ])
        ))
        defer { Task { await session.shutdown() } }

        let request = try SecureRequest.json(.post, url: URL(string: "https://api.example.test:\(partner.port)/echo")!, body: ["amount": "12.00"])
        let answer = try await session.send(request)
        #expect(answer.statusCode == 200)
        #expect(answer.text.contains("12.00"))
        #expect(try await session.get(URL(string: "https://api.example.test:\(partner.port)/client-certificate")!).text.contains("our-service"))

        for (server, words) in [(publicCA, "public CA"), (otherName, "another name")] {
            let error = await #expect(throws: SecureSessionError.self, "\(words)") {
                try await session.get(URL(string: "https://api.example.test:\(server.port)/hello")!)
            }
            #expect(error?.code == .trustRejected, "\(words): \(String(describing: error))")
        }
        // A wrong passphrase is refused when the identity is read, saying so.
        #expect(throws: ClientIdentityError.self) { try ClientIdentity(pkcs12File: file("client.p12"), passphrase: "") }
    }
}
