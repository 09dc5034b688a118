import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

@Suite("A session completing chains from caIssuers URLs")
struct IssuerFetchingSessionTests {
    let lab = try! TrustLab()

    /// A leaf for 127.0.0.1 of the lab's intermediate, naming `url` as where its issuer is published.
    func loopbackLeaf(caIssuers url: URL) throws -> IssuedCertificate {
        let profile = CertificateProfile.server("loopback", ipAddresses: ["127.0.0.1"]).pointingTo(caIssuers: [url.absoluteString])
        return try lab.pki.issue(profile, by: lab.intermediate)
    }

    @Test("a server sending only its leaf: refused without fetching; with a SessionIssuerFetcher, the PKCS#7 bundle openssl made is fetched once, kept, and the server trusted")
    func fetchesThroughASession() async throws {
        let publisher = try await HTTPTestServer(chain: nil)
        let url = publisher.url("/files/issuing.p7c")
        let directory = NSTemporaryDirectory() + "p7c-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try lab.intermediate.pemString.write(toFile: directory + "/issuing.pem", atomically: true, encoding: .utf8)
        _ = try shell("openssl crl2pkcs7 -nocrl -certfile \(directory)/issuing.pem -outform DER -out \(directory)/issuing.p7c")
        publisher.files[bytes: "issuing.p7c"] = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/issuing.p7c")))
        let server = try await HTTPTestServer(chain: [try loopbackLeaf(caIssuers: url)])

        let plain = lab.session()
        await #expect {
            _ = try await plain.get(server.url("/hello"))
        } throws: { error in
            guard case .trustRejected(let decision)? = error.sessionFailureReason else { return false }
            return decision.lastEvaluation?.failures.first?.code == .missingIssuer
        }
        await plain.shutdown()

        let fetching = SecureSession(configuration: SecureSessionConfiguration(tls: .init(decisionCache: nil), timeouts: .init(request: .seconds(5))))
        let fetcher = SessionIssuerFetcher(session: fetching, clock: { [lab] in lab.pki.now })
        for _ in 0..<2 {
            let session = lab.session(IntermediateFetchingEvaluator(SecurityPolicy.default, fetcher: fetcher))
            let response = try await session.get(server.url("/hello"))
            #expect(response.text == "hello")
            let decision = try #require(response.trustDecision)
            #expect(decision.checks.contains { $0.name == "issuer certificate from \(url.absoluteString)" && $0.passed })
            await session.shutdown()
        }
        #expect(fetcher.networkFetches == 1, "kept after the first fetch")

        // A URL that answers 404, and one that is not http: refused, saying so.
        await #expect(throws: SecureSessionError.self) { _ = try await fetcher.issuerCertificates(at: publisher.url("/files/missing").absoluteString) }
        await #expect {
            _ = try await fetcher.issuerCertificates(at: "ldap://ca.example.test/cn=issuing")
        } throws: { error in
            "\(error)".contains("http and https URLs only")
        }
        await fetching.shutdown()
        await server.stop()
        await publisher.stop()
    }
}
