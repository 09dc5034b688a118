import Foundation
import PKIBuilder
import TestServers
import Testing
import TransportSecurity

@testable import SecureSession

@Suite("The session's TLS versions (minimumTLSVersion, maximumTLSVersion), against openssl s_server")
struct TLSVersionTests {
    let lab = try! TrustLab()

    @Test("the lowest version: TLS 1.2 by default, a rule's own minimum where one applies (an exception may lower it), the session's when set, which raises a rule's but never lowers it")
    func floors() {
        let none = TLSVersionBounds(minimum: nil, maximum: nil)
        #expect(none.floor(underRuleMinimum: nil) == .tls12)
        #expect(none.floor(underRuleMinimum: .tls10) == .tls10)
        #expect(none.isDefault)
        let raised = TLSVersionBounds(minimum: .tls13, maximum: nil)
        #expect(raised.floor(underRuleMinimum: nil) == .tls13)
        #expect(raised.floor(underRuleMinimum: .tls10) == .tls13)
        let modest = TLSVersionBounds(minimum: .tls12, maximum: .tls13)
        #expect(modest.floor(underRuleMinimum: .tls13) == .tls13, "the rule asks for more")
        #expect(modest.allowedDescription == "TLS 1.2 to TLS 1.3")
        #expect(TLSVersionBounds(minimum: nil, maximum: .tls12).allowedDescription == "TLS 1.2 only")
        #expect(raised.allowedDescription == "TLS 1.3 and later")
    }

    @Test("maximumTLSVersion .tls12 makes TLS 1.2 connections to a server that speaks TLS 1.3; by default TLS 1.3 is used; the response's tlsVersion says which, on a reused connection too, and nothing in cleartext")
    func maximum() async throws {
        let server = try OpenSSLServer(chain: lab.loopbackChain())
        defer { server.stop() }
        let newest = lab.session()
        let overTLS13 = try await newest.get(server.url)
        #expect(overTLS13.text.contains("Protocol  : TLSv1.3"))
        #expect(overTLS13.tlsVersion == .tls13, "the response says which version its connection agreed")
        await newest.shutdown()
        let capped = lab.session { $0.tls.maximumTLSVersion = .tls12 }
        let overTLS12 = try await capped.get(server.url)
        // The status page lists the server's suites of every version, then the connection's.
        #expect(overTLS12.text.contains("Protocol  : TLSv1.2"), "\(overTLS12.text.suffix(400))")
        #expect(overTLS12.tlsVersion == .tls12)
        await capped.shutdown()
        // A kept-alive connection's later responses say it too; cleartext says nothing.
        let keeping = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session { $0.connections.httpVersions = .http1Only }
        _ = try await session.get(keeping.url("/hello"))
        let again = try await session.get(keeping.url("/hello"))
        #expect(again.timing.reusedConnection && again.tlsVersion == .tls13)
        let cleartext = try await HTTPTestServer(chain: nil)
        #expect(try await session.get(cleartext.url("/hello")).tlsVersion == nil)
        await session.shutdown()
        await keeping.stop()
        await cleartext.stop()
    }

    @Test("minimumTLSVersion .tls13 against a server of TLS 1.2 only fails saying no version is shared and what the session allows")
    func minimum() async throws {
        let server = try OpenSSLServer(chain: lab.loopbackChain(), options: ["-tls1_2"])
        defer { server.stop() }
        let session = lab.session { $0.tls.minimumTLSVersion = .tls13 }
        await #expect {
            _ = try await session.get(server.url)
        } throws: { error in
            guard case .tlsFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("no TLS version in common") && detail.contains("(the session allows TLS 1.3 and later: minimumTLSVersion, maximumTLSVersion)")
        }
        await session.shutdown()
        let usual = lab.session()
        #expect(try await usual.get(server.url).text.contains("Protocol  : TLSv1.2"))
        await usual.shutdown()
    }

    @Test("a minimum above the maximum fails every request before connecting, naming both")
    func noVersionLeft() async throws {
        let server = try OpenSSLServer(chain: lab.loopbackChain())
        defer { server.stop() }
        let session = lab.session {
            $0.tls.minimumTLSVersion = .tls13
            $0.tls.maximumTLSVersion = .tls12
        }
        await #expect {
            _ = try await session.get(server.url)
        } throws: { error in
            guard case .tlsFailure(let detail)? = error.sessionFailureReason else { return false }
            return detail == "no TLS version is allowed: at least TLS 1.3 (minimumTLSVersion) and at most TLS 1.2 (maximumTLSVersion)"
        }
        await session.shutdown()
    }
}
