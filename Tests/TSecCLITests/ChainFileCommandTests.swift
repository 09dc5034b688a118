import Foundation
import PKIBuilder
import TSecCLI
import TestServers
import Testing
import TransportSecurity

@Suite("tsec fetch-chain and tsec convert")
struct ChainFileCommandTests {
    let files = try! LabFiles()
    var lab: TrustLab { files.lab }

    @Test("fetch-chain saves the presented chain as PEM, or the leaf as DER, without judging it")
    func fetchChain() async throws {
        // An untrusted chain: fetch-chain must not care.
        let rogueLeaf = try lab.pki.issue(.server("rogue", ipAddresses: ["127.0.0.1"]), by: lab.rogueRoot)
        let chain = [rogueLeaf, lab.rogueRoot]
        let server = try await HTTPTestServer(chain: chain)
        let pem = files.path("fetched.pem")
        let fetched = await tsec(["fetch-chain", "127.0.0.1:\(server.port)", "-o", pem])
        #expect(fetched.status == 0, "\(fetched.output.stderr)")
        #expect(try CertificateLoader.certificates(atPath: pem) == chain.map(\.der))
        #expect(fetched.output.stdout.contains(rogueLeaf.der.spkiPin.description))
        let der = files.path("fetched.der")
        let leafOnly = await tsec(["fetch-chain", "127.0.0.1:\(server.port)", "-o", der, "--der"])
        #expect(leafOnly.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: der)) == Data(rogueLeaf.derBytes))
        #expect(leafOnly.output.stderr.contains("1 more certificate"))
        let port = server.port
        await server.stop()
        let refused = await tsec(["fetch-chain", "127.0.0.1:\(port)", "-o", pem])
        #expect(refused.status == 3)
        #expect(refused.output.stderr == "tsec fetch-chain: cannot connect to 127.0.0.1:\(port): the connection was refused at 127.0.0.1:\(port)\n")
        #expect(await tsec(["fetch-chain", "no-port", "-o", pem]).status == 2)
    }

    @Test("--servername sends that name as SNI (openssl s_server picks its certificate by it) for fetch-chain and inspect; an address is refused")
    func serverName() async throws {
        let selfKey = try files.write("self.key", try lab.selfSigned.privateKeyPEM)
        let leafKey = try files.write("leaf.key", try lab.leaf.privateKeyPEM)
        let server = try OpenSSLServer(
            certificateFile: files.path("self.pem"),
            keyFile: selfKey,
            options: ["-servername", "api.example.test", "-cert2", files.path("leaf.pem"), "-key2", leafKey]
        )
        defer { server.stop() }
        let byAddress = await tsec(["fetch-chain", "127.0.0.1:\(server.port)", "-o", files.path("default.pem")])
        #expect(byAddress.status == 0, "\(byAddress.output.stderr)")
        #expect(try CertificateLoader.certificates(atPath: files.path("default.pem")).first == lab.selfSigned.der)
        let named = await tsec(["fetch-chain", "127.0.0.1:\(server.port)", "--servername", "api.example.test", "-o", files.path("named.pem")])
        #expect(named.status == 0, "\(named.output.stderr)")
        #expect(try CertificateLoader.certificates(atPath: files.path("named.pem")).first == lab.leaf.der)
        let inspected = await tsec(["inspect", "127.0.0.1:\(server.port)", "--servername", "api.example.test"])
        #expect(inspected.status == 0)
        #expect(inspected.output.stdout.contains(lab.leaf.der.spkiPin.description))
        #expect(!inspected.output.stdout.contains(lab.selfSigned.der.spkiPin.description))
        #expect(await tsec(["fetch-chain", "127.0.0.1:\(server.port)", "--servername", "192.0.2.1", "-o", files.path("x.pem")]).status == 2)
    }

    @Test("convert between PEM and DER; a bundle does not fit in DER")
    func convert() async throws {
        let der = files.path("leaf-converted.der")
        #expect(await tsec(["convert", files.path("leaf.pem"), "-o", der, "--to", "der"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: der)) == Data(lab.leaf.derBytes))
        let pem = files.path("leaf-converted.pem")
        #expect(await tsec(["convert", der, "-o", pem, "--to", "pem"]).status == 0)
        #expect(try CertificateLoader.certificates(atPath: pem) == [lab.leaf.der])
        let bundle = await tsec(["convert", files.path("legitimate.pem"), "-o", der, "--to", "der"])
        #expect(bundle.status == 2)
        #expect(bundle.output.stderr.contains("holds 2 certificates"))
        #expect(await tsec(["convert", files.path("garbage.pem"), "-o", der, "--to", "pem"]).status == 2)
        #expect(await tsec(["convert", files.path("leaf.pem"), "-o", der, "--to", "xml"]).status == 2)
        let unwritable = await tsec(["convert", files.path("leaf.pem"), "-o", "/nonexistent/leaf.der", "--to", "der"])
        #expect(unwritable.status == 2)
        #expect(unwritable.output.stderr == "tsec convert: cannot write /nonexistent/leaf.der: No such file or directory\n")
    }
}
