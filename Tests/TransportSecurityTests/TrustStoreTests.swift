import Foundation
import PKIBuilder
import Testing
import TransportSecurity

@Suite("Trust stores")
struct TrustStoreTests {
    let lab = LabFixture.shared.lab

    @Test("SSL_CERT_FILE names the bundle")
    func certFile() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("roots.pem", text: [lab.root, lab.proxyRoot].pemBundle)
        let store = try TrustStore.loadSystem(environment: ["SSL_CERT_FILE": file, "SSL_CERT_DIR": "/nonexistent"])
        #expect(store.certificates == [lab.root.der, lab.proxyRoot.der])
        #expect(store.origin == file)
    }

    @Test("SSL_CERT_DIR lists directories whose files are read, duplicates dropped")
    func certDirectory() throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        try first.write("a1b2c3d4.0", text: lab.root.pemString)
        try first.write("root.pem", text: lab.root.pemString)
        try second.write("proxy.crt", text: lab.proxyRoot.pemString)
        try second.write("README", text: "not a certificate")
        let store = try TrustStore.loadSystem(environment: ["SSL_CERT_DIR": "\(first.path):\(second.path)"])
        #expect(Set(store.certificates) == [lab.root.der, lab.proxyRoot.der])
        #expect(store.certificates.count == 2)
    }

    @Test("without variables the first existing well-known bundle is used")
    func wellKnownPaths() throws {
        let directory = try TemporaryDirectory()
        let bundle = try directory.write("ca-bundle.crt", text: lab.root.pemString)
        let store = try TrustStore.loadSystem(environment: [:], bundlePaths: ["/nonexistent/a.crt", bundle])
        #expect(store.certificates == [lab.root.der])
    }

    @Test("a store's fingerprint depends on its contents only")
    func fingerprint() {
        let one = TrustStore([lab.root.der, lab.proxyRoot.der])
        let same = TrustStore([lab.proxyRoot.der, lab.root.der, lab.root.der], origin: "elsewhere")
        let other = TrustStore([lab.root.der])
        #expect(one == same)
        #expect(one.fingerprint != other.fingerprint)
    }

    @Test("an evaluation can replace the system store")
    func override() async {
        let fixture = LabFixture.shared
        var trust = fixture.trust(.legitimate)
        #expect(await trust.evaluate().isTrusted)
        trust.systemStore = TrustStore([lab.proxyRoot.der])
        #expect(await trust.evaluate().failures.map(\.code) == [.missingIssuer])
        trust.systemStore = .empty
        #expect(await trust.evaluate().isTrusted == false)
    }
}
