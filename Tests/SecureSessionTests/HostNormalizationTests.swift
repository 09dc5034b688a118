import SecureSession
import Testing

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
}
