import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

@Suite("HSTS (RFC 6797)")
struct HSTSTests {
    let lab = try! TrustLab()

    @Test("the field's grammar: max-age required, once; includeSubDomains without a value; names in any case; quoted values; unknown directives ignored")
    func parsing() {
        func parsed(_ value: String) -> StrictTransportSecurity? { StrictTransportSecurity(fieldValue: value) }
        #expect(parsed("max-age=31536000") == StrictTransportSecurity(maximumAge: 31_536_000, includesSubdomains: false))
        #expect(parsed("Max-Age=\"600\" ; INCLUDESUBDOMAINS; preload") == StrictTransportSecurity(maximumAge: 600, includesSubdomains: true))
        #expect(parsed(";; max-age=0 ;") == StrictTransportSecurity(maximumAge: 0, includesSubdomains: false))
        #expect(parsed("max-age=99999999999999999999999")?.maximumAge == Int64.max)
        #expect(parsed("max-age=1; unknown=\"a;b\\\" c\"") == StrictTransportSecurity(maximumAge: 1, includesSubdomains: false), "a ';' in a quoted string separates nothing")
        for invalid in [
            "", "includeSubDomains", "max-age=", "max-age=1; x=\"open", "max-age=-1", "max-age=1.5", "max-age=\"12", "max-age=1; max-age=2",
            "max-age=1; includeSubDomains; includesubdomains", "max-age=1; includeSubDomains=yes", "max-age=1; bad name=1", "max-age=0x10",
        ] {
            #expect(parsed(invalid) == nil, "\(invalid)")
        }
    }

    @Test("known hosts: the name itself, its subdomains only with includeSubDomains, never an address, not after expiry; http URLs upgraded, port 80 to 443, other ports kept")
    func store() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let store = HSTSStore([
            HSTSEntry(host: "Bank.Example.", includesSubdomains: true, expires: now.addingTimeInterval(60)),
            HSTSEntry(host: "shop.example", includesSubdomains: false, expires: now.addingTimeInterval(60)),
            HSTSEntry(host: "old.example", includesSubdomains: true, expires: now.addingTimeInterval(-1)),
            HSTSEntry(host: "192.0.2.1", includesSubdomains: false, expires: nil),
            // Names that could never be looked up are not kept (found by FuzzHSTS: "a.." was
            // kept as "a.", which no lookup reaches).
            HSTSEntry(host: "bank.example..", includesSubdomains: true, expires: nil),
            HSTSEntry(host: "bänk.example", includesSubdomains: true, expires: nil),
            HSTSEntry(host: "a..b", includesSubdomains: true, expires: nil),
        ])
        #expect(store.entries(at: now).map(\.host) == ["bank.example", "shop.example"])
        #expect(store.isKnownHost("bank.example", at: now))
        #expect(store.isKnownHost("login.eu.BANK.example.", at: now))
        #expect(!store.isKnownHost("notbank.example", at: now))
        #expect(store.isKnownHost("shop.example", at: now))
        #expect(!store.isKnownHost("www.shop.example", at: now))
        #expect(!store.isKnownHost("old.example", at: now))
        #expect(!store.isKnownHost("192.0.2.1", at: now))
        #expect(!store.isKnownHost("bank.example", at: now.addingTimeInterval(61)))

        func upgrade(_ text: String) -> String? { store.upgraded(URL(string: text)!, at: now)?.absoluteString }
        #expect(upgrade("http://bank.example/a?b=1#c") == "https://bank.example/a?b=1#c")
        #expect(upgrade("http://bank.example:80/") == "https://bank.example/")
        #expect(upgrade("http://user@bank.example:8080/x") == "https://user@bank.example:8080/x")
        #expect(upgrade("https://bank.example/") == nil)
        #expect(upgrade("http://elsewhere.example/") == nil)

        store.remove(host: "BANK.example")
        #expect(!store.isKnownHost("bank.example", at: now))
        store.removeAll()
        #expect(store.entries(at: now).isEmpty)
    }

    @Test("the store keeps at most maximumEntries hosts, dropping those that expire first")
    func bounded() {
        let now = Date()
        let store = HSTSStore((0...HSTSStore.maximumEntries).map {
            HSTSEntry(host: "h\($0).example", includesSubdomains: false, expires: now.addingTimeInterval(Double(1_000 + $0)))
        })
        #expect(store.entries(at: now).count == HSTSStore.maximumEntries)
        #expect(!store.isKnownHost("h0.example", at: now))
        #expect(store.isKnownHost("h\(HSTSStore.maximumEntries).example", at: now))
    }

    /// A server for `hsts.example.test` and `www.hsts.example.test` on 127.0.0.1.
    private func namedServer() async throws -> HTTPTestServer {
        let leaf = try lab.pki.issue(.server("hsts", dnsNames: ["hsts.example.test", "www.hsts.example.test"]), by: lab.intermediate)
        return try await HTTPTestServer(chain: [leaf, lab.intermediate])
    }

    private func session(store: HSTSStore?, port: Int, configure: (inout SecureSessionConfiguration) -> Void = { _ in }) -> SecureSession {
        lab.session { configuration in
            configuration.features.hsts = store
            configuration.connections.addressOverrides = ["hsts.example.test", "www.hsts.example.test"].map { AddressOverride(host: $0, port: port, address: "127.0.0.1") }
            configure(&configuration)
        }
    }

    private static func stsURL(_ server: HTTPTestServer, host: String = "hsts.example.test", _ value: String) -> URL {
        server.url("/header?name=Strict-Transport-Security&value=" + value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!, host: host)
    }

    @Test("a host that said Strict-Transport-Security over https is then reached over https only, its subdomains too, redirects included; max-age=0 forgets it")
    func session() async throws {
        let server = try await namedServer()
        defer { Task { await server.stop() } }
        let store = HSTSStore()
        let session = session(store: store, port: server.port)
        defer { Task { await session.shutdown() } }
        let http = URL(string: "http://www.hsts.example.test:\(server.port)/hello")!

        // Not yet known: http goes in the clear, to a TLS port, and fails.
        await #expect(throws: SecureSessionError.self) { try await session.get(http) }
        _ = try await session.get(Self.stsURL(server, "max-age=600; includeSubDomains"))
        #expect(store.entries().map(\.host) == ["hsts.example.test"])
        #expect(store.entries().first?.includesSubdomains == true)

        let upgraded = try await session.get(http)
        #expect(upgraded.text == "hello")
        #expect(upgraded.url.absoluteString == "https://www.hsts.example.test:\(server.port)/hello")
        // A redirect from https to http of a known host is followed over https, not refused.
        let target = "http://hsts.example.test:\(server.port)/hello"
        let redirected = try await session.get(server.url("/redirect?to=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!, host: "hsts.example.test"))
        #expect(redirected.url.scheme == "https")
        #expect(redirected.text == "hello")

        _ = try await session.get(Self.stsURL(server, "max-age=0"))
        #expect(store.entries().isEmpty)
        await #expect(throws: SecureSessionError.self) { try await session.get(http) }
    }

    @Test("the field is not believed in cleartext, for an address, or over TLS accepted without a clean validation (a man in the middle let through cannot make the client forget a host)")
    func untrustedSources() async throws {
        let server = try await namedServer()
        defer { Task { await server.stop() } }
        let cleartext = try await HTTPTestServer(chain: nil)
        defer { Task { await cleartext.stop() } }
        let rogueLeaf = try lab.pki.issue(.server("rogue", dnsNames: ["hsts.example.test"]), by: lab.rogueRoot)
        let impostor = try await HTTPTestServer(chain: [rogueLeaf])
        defer { Task { await impostor.stop() } }
        let loopback = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await loopback.stop() } }

        let store = HSTSStore([HSTSEntry(host: "hsts.example.test", includesSubdomains: false, expires: Date().addingTimeInterval(600))])
        let session = session(store: store, port: server.port)
        defer { Task { await session.shutdown() } }
        _ = try await session.get(Self.stsURL(cleartext, host: "localhost", "max-age=600"))
        _ = try await session.get(Self.stsURL(loopback, host: "127.0.0.1", "max-age=600"))
        #expect(store.entries().map(\.host) == ["hsts.example.test"])

        // An impostor accepted under allowInvalidCertificates says max-age=0: ignored.
        let lax = self.session(store: store, port: impostor.port) { configuration in
            configuration.tls.trustEvaluator = AnyServerTrustEvaluator(SecurityPolicy(pinningMode: .none, allowInvalidCertificates: true, validatesDomainName: false))
        }
        defer { Task { await lax.shutdown() } }
        let accepted = try await lax.get(Self.stsURL(impostor, "max-age=0"))
        #expect(accepted.statusCode == 200)
        #expect(store.isKnownHost("hsts.example.test"))
    }
}
