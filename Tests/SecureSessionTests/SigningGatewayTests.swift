import Foundation
import HTTPMessageSignatures
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

/// A session that accepts `api.bank.test`'s answers only signed, against an API that signs them
/// (RFC 9421, Ed25519, with python3-cryptography: `Tests/Fixtures/signing-gateway`) behind a
/// gateway that terminates TLS and adds answers of its own, unsigned: the session acts on no
/// answer it has not verified, and an answer refused leaves nothing behind (cookies, HSTS, the
/// cache).
@Suite("Signed responses behind a gateway")
struct SigningGatewayTests {
    let lab = try! TrustLab()

    /// The gateway's server, the API's verification key, and a session that needs the answers
    /// of `api.bank.test` signed by it, with a cookie jar, HSTS, a cache and Basic credentials
    /// for the API; `evil.test` and `api.bank.test` both reach the server.
    private struct Setup {
        let server: PythonTLSServer
        let session: SecureSession
        let jar: CookieJar
        let hsts: HSTSStore
        let cache: ResponseCache

        func url(_ path: String, host: String = "api.bank.test") -> URL {
            URL(string: "https://\(host):\(server.port)\(path)")!
        }

        /// `/redirect`-like `path` of the API, to `target`.
        func url(_ path: String, to target: URL) -> URL {
            url(path + "?to=" + target.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        }

        /// The requests the server answered so far (not counting this one).
        func seen() async throws -> [[String: String]] {
            var request = SecureRequest(url: url("/seen"))
            request.cachePolicy = .reloadIgnoringCacheData
            let text = try await session.send(request).text
            return try text.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).compactMapValues { $0 as? String }
            }
        }

        func tearDown() async {
            await session.shutdown()
            server.stop()
        }
    }

    private func setup(configure: (inout SecureSessionConfiguration) -> Void = { _ in }) throws -> Setup {
        let leaf = try lab.pki.issue(.server("gateway", dnsNames: ["api.bank.test", "evil.test"]), by: lab.intermediate)
        let keyFile = NSTemporaryDirectory() + "gateway-key-\(UUID().uuidString).pem"
        defer { try? FileManager.default.removeItem(atPath: keyFile) }
        let server = try PythonTLSServer(fixture: "signing-gateway", chain: [leaf, lab.intermediate], arguments: [keyFile])
        let key = try HTTPSignatureVerificationKey(id: "gateway-2026", pemEncoded: String(contentsOfFile: keyFile, encoding: .utf8))
        let jar = CookieJar()
        let hsts = HSTSStore()
        let cache = ResponseCache()
        let session = lab.session { configuration in
            configuration.connections.addressOverrides = ["api.bank.test", "evil.test"].map { AddressOverride(host: $0, port: server.port, address: "127.0.0.1") }
            configuration.responses.signatures = ResponseSignatureRequirement(
                verifier: HTTPMessageSignatureVerifier(keys: [key], requiredComponents: [.status]),
                hosts: [try! HostPattern("api.bank.test")]
            )
            configuration.features.cookieJar = jar
            configuration.features.hsts = hsts
            configuration.responses.cache = cache
            configuration.features.credentialStore.set(
                .user("alice", password: "wonderland"),
                for: ProtectionSpace(host: "api.bank.test", port: server.port, isSecure: true, realm: "api", method: .httpBasic)
            )
            configure(&configuration)
        }
        return Setup(server: server, session: session, jar: jar, hsts: hsts, cache: cache)
    }

    private static func rejection(_ error: any Error) -> (status: Int, reason: HTTPSignatureError)? {
        guard case .responseSignatureRejected(let status, let reason)? = error.sessionFailureReason else { return nil }
        return (status, reason)
    }

    @Test("the API's own signature (python3-cryptography's Ed25519) verifies; its signed redirect is followed and its cookie kept, sent on the next hop")
    func signedAnswersAreActedOn() async throws {
        let setup = try setup()
        let response = try await setup.session.get(setup.url("/redirect", to: setup.url("/api")))
        #expect(response.text == "genuine" && response.redirects == [setup.url("/api")])
        #expect(Set(setup.jar.cookies.map(\.name)) == ["hop", "session"])
        #expect(setup.jar.cookies.first { $0.name == "session" }?.value == "genuine")
        #expect(setup.hsts.isKnownHost("api.bank.test"))
        let seen = try await setup.seen()
        #expect(seen.map { $0["path"] } == ["/redirect", "/api"])
        #expect(seen.last?["cookie"] == "hop=signed")
        // A signed challenge is answered.
        #expect(try await setup.session.get(setup.url("/basic")).text == "welcome")
        await setup.tearDown()
    }

    @Test("an unsigned redirect the gateway adds is refused before it is followed: its cookie is not kept nor sent, its HSTS not noted, the target never asked")
    func unsignedRedirectIsRefused() async throws {
        let setup = try setup()
        await #expect { try await setup.session.get(setup.url("/gateway-redirect", to: setup.url("/api"))) } throws: { error in
            guard let (status, reason) = Self.rejection(error), case .noSignature = reason else { return false }
            return status == 302
        }
        #expect(setup.jar.cookies.isEmpty)
        #expect(setup.hsts.entries().isEmpty)
        #expect(try await setup.seen().map { $0["path"] } == ["/gateway-redirect"])
        await setup.tearDown()
    }

    @Test("a signed redirect that leaves the hosts whose answers must be signed is refused, naming it; the other host is never asked")
    func redirectLeavingTheSignedHostsIsRefused() async throws {
        let setup = try setup()
        let elsewhere = setup.url("/api", host: "evil.test")
        let from = setup.url("/redirect", to: elsewhere)
        await #expect { try await setup.session.get(from) } throws: { error in
            guard case .redirectRefused(302, from, elsewhere, let reason)? = error.sessionFailureReason else { return false }
            return reason == "the responses of api.bank.test must be signed (responses.signatures), and those of evil.test need not be"
        }
        #expect(try await setup.seen().map { $0["path"] } == ["/redirect"])
        // The redirect itself verified: its cookie counts.
        #expect(setup.jar.cookies.map(\.name) == ["hop"])
        await setup.tearDown()
    }

    @Test("an unsigned challenge is not answered: the credentials are never sent")
    func unsignedChallengeIsNotAnswered() async throws {
        let setup = try setup()
        await #expect { try await setup.session.get(setup.url("/gateway-basic")) } throws: { error in
            Self.rejection(error)?.status == 401
        }
        let seen = try await setup.seen()
        #expect(seen.map { $0["path"] } == ["/gateway-basic"])
        #expect(seen.allSatisfy { $0["authorization"] == nil })
        await setup.tearDown()
    }

    @Test("a kept answer is revalidated whole, never by a conditional request whose 304 (unsigned, with the gateway's cookie and a year's freshness) would confirm it with fields of its own")
    func keptAnswersAreAskedForWhole() async throws {
        let setup = try setup()
        for _ in 0..<2 {
            #expect(try await setup.session.get(setup.url("/etag")).text == "genuine")
        }
        #expect(setup.jar.cookies.isEmpty)
        let seen = try await setup.seen()
        #expect(seen.map { $0["path"] } == ["/etag", "/etag"])
        #expect(seen.allSatisfy { $0["if-none-match"] == nil })
        await setup.tearDown()
    }

    @Test("an unsigned 503 is not retried, held or streamed: the retry policy acts on no answer that has not verified")
    func unsignedAnswerIsNotRetried() async throws {
        let setup = try setup { $0.features.interceptor = RetryPolicy(initialDelay: .milliseconds(1), jitter: 0) }
        await #expect { try await setup.session.get(setup.url("/gateway-busy")) } throws: { Self.rejection($0)?.status == 503 }
        await #expect { try await setup.session.stream(SecureRequest(url: setup.url("/gateway-busy"))) { _ in } } throws: { error in
            Self.rejection(error)?.status == 503
        }
        #expect(try await setup.seen().map { $0["path"] } == ["/gateway-busy", "/gateway-busy"])
        await setup.tearDown()
    }

    @Test("an answer whose body the gateway changed after it was signed is refused whole, held or streamed: no cookie, no HSTS, nothing kept by the cache (the next request asks the server again)")
    func refusedAnswerLeavesNoTrace() async throws {
        let setup = try setup()
        for _ in 0..<2 {
            await #expect { try await setup.session.get(setup.url("/tampered")) } throws: { error in
                guard case .contentDigestMismatch? = Self.rejection(error)?.reason else { return false }
                return true
            }
        }
        await #expect { try await setup.session.stream(SecureRequest(url: setup.url("/tampered"))) { _ in } } throws: { error in
            guard case .contentDigestMismatch? = Self.rejection(error)?.reason else { return false }
            return true
        }
        #expect(setup.jar.cookies.isEmpty)
        #expect(setup.hsts.entries().isEmpty)
        #expect(setup.cache.count == 0)
        #expect(try await setup.seen().map { $0["path"] } == ["/tampered", "/tampered", "/tampered"])
        await setup.tearDown()
    }
}
