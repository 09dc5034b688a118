import Foundation
import PKIBuilder
import SecureSession
import Testing
import TestServers
import TransportSecurity

@Suite("Hosts given to the session: protection spaces and address overrides")
struct HostNormalizationTests {
    @Test("hosts are normalized as the engine's ServerHost: ASCII case, one trailing dot, IPv6 brackets; the KELVIN SIGN stays itself")
    func normalization() {
        #expect(ProtectionSpace(host: "API.Example.COM.", port: 443, isSecure: true, realm: nil, method: .httpBasic).host == "api.example.com")
        #expect(ProtectionSpace(host: "\u{212A}ey.example.com", port: 443, isSecure: true, realm: nil, method: .httpBasic).host.unicodeScalars.first == "\u{212A}")
        let address = ProtectionSpace(host: "[::1]", port: 8443, isSecure: true, realm: nil, method: .serverTrust)
        #expect(address.host == "::1")
        #expect(address.description == "https://[::1]:8443 (serverTrust)")
        #expect(AddressOverride(host: "DB.Internal.", port: 5432, address: "127.0.0.1").host == "db.internal")
        #expect(AddressOverride(host: "\u{212A}ey.example.com", port: 443, address: "127.0.0.1").host != "key.example.com")
    }

    @Test("a URL host that resolvers read as an IPv4 address (2130706433, 127.1) is that address: trusted by the certificate's IP entry, sent as Host 127.0.0.1, judged by 127.0.0.1's transport rule")
    func numericHosts() async throws {
        let lab = try TrustLab()
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let cleartext = try await HTTPTestServer(chain: nil)
        // Local networking off, with an exception for 127.0.0.1: `2130706433` read as a name
        // would be an unqualified, local one, and refused.
        let (rules, issues) = try TransportSecurityConfiguration.load(from: Data(#"""
            {"NSAllowsLocalNetworking": false, "NSExceptionDomains": {"127.0.0.1": {"NSExceptionAllowsInsecureHTTPLoads": true}}}
            """#.utf8))
        #expect(issues.isEmpty)
        let session = lab.session { $0.tls.transportRules = rules }
        for host in ["2130706433", "127.1", "0x7f.0.0.1"] {
            let response = try await session.get(URL(string: "https://\(host):\(server.port)/headers")!)
            #expect(response.statusCode == 200, "\(host)")
            #expect(try response.decode([String: String].self)["host"] == "127.0.0.1:\(server.port)", "\(host)")
            let plain = try await session.get(URL(string: "http://\(host):\(cleartext.port)/hello")!)
            #expect(plain.text == "hello", "\(host)")
        }
        await session.shutdown()
        await server.stop()
        await cleartext.stop()
    }

    @Test("a URL whose decoded host no host name can be (%00, %0A, %20, %2F) is an invalid URL before anything connects: the resolver would look up the name before the NUL, judged by the rules of the whole")
    func undecodableHosts() async throws {
        let lab = try TrustLab()
        let cleartext = try await HTTPTestServer(chain: nil)
        // Cleartext is allowed under example.test only; localhost is refused.
        let (rules, _) = try TransportSecurityConfiguration.load(from: Data(#"""
            {"NSAllowsLocalNetworking": false, "NSExceptionDomains": {"example.test": {"NSIncludesSubdomains": true, "NSExceptionAllowsInsecureHTTPLoads": true}}}
            """#.utf8))
        let session = lab.session { $0.tls.transportRules = rules }
        for encoded in ["localhost%00.example.test", "localhost%0A.example.test", "local%20host.example.test", "localhost%2F.example.test"] {
            let request = SecureRequest(url: URL(string: "http://\(encoded):\(cleartext.port)/hello")!, headers: [("Host", "localhost")])
            await #expect("\(encoded)") {
                _ = try await session.send(request)
            } throws: { error in
                guard case .invalidURL(let reason)? = error.sessionFailureReason else { return false }
                return reason.contains(": its host has the character ")
            }
        }
        #expect(throws: SecureSessionError.self) { try HTTPProxy(url: "http://proxy%00.example.test:8080") }
        await session.shutdown()
        await cleartext.stop()
    }
}
