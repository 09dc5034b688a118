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
        // An https:// URL names the same server (its path ignored).
        let server2 = try await HTTPTestServer(chain: chain)
        let byURL = await tsec(["fetch-chain", "https://127.0.0.1:\(server2.port)/some/path?q=1", "-o", pem])
        #expect(byURL.status == 0, "\(byURL.output.stderr)")
        #expect(try CertificateLoader.certificates(atPath: pem) == chain.map(\.der))
        await server2.stop()
    }

    @Test(
        "a server argument that is not HOST:PORT or an https:// URL is a usage error that says what to write",
        arguments: [
            ("example.com", "'example.com' has no port: write HOST:PORT (example.com:443 for HTTPS)"),
            ("[::1]", "'[::1]' has no port: write HOST:PORT ([::1]:443 for HTTPS)"),
            ("example.com:0", "'example.com:0': the port '0' is not a number between 1 and 65535"),
            ("example.com:99999", "'example.com:99999': the port '99999' is not a number between 1 and 65535"),
            ("example.com:https", "'example.com:https': the port 'https' is not a number between 1 and 65535"),
            (":443", "':443' has no host: write HOST:PORT"),
            ("http://example.com/", "'http://example.com/' is not HOST:PORT or an https:// URL with a host"),
            ("https://example.com:70000/", "'https://example.com:70000/': the port 70000 is not between 1 and 65535"),
            // The URL's host is percent-decoded: the resolver would have looked up `localhost`.
            ("https://localhost%00.example.com/", "'https://localhost%00.example.com/': its host has the character U+0000, which no host name has"),
            ("a_b c.example:443", "'a_b c.example:443': its host has the character ' ', which no host name has"),
            ("*.example.com:443", "'*.example.com:443': its host has the character '*', which no host name has"),
        ]
    )
    func malformedServer(argument: String, message: String) async {
        let fetched = await tsec(["fetch-chain", argument, "-o", files.path("unused.pem")])
        #expect(fetched.status == 2)
        #expect(fetched.output.stderr.contains("Error: \(message)\n"), "\(fetched.output.stderr)")
        let inspected = await tsec(["inspect", argument])
        #expect(inspected.status == 2)
        #expect(inspected.output.stderr == "tsec inspect: no file is named '\(argument)', and as a server: \(message)\n")
    }

    @Test("a refused IPv6 server is named with brackets, so its port stands apart")
    func bracketedIPv6() async {
        let refused = await tsec(["inspect", "[::1]:1"])
        #expect(refused.status == 3)
        #expect(refused.output.stderr == "tsec inspect: cannot connect to [::1]:1: the connection was refused at [::1]:1\n")
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
        let wildcard = await tsec(["fetch-chain", "127.0.0.1:\(server.port)", "--servername", "*.example.test", "-o", files.path("x.pem")])
        #expect(wildcard.status == 2)
        #expect(wildcard.output.stderr.contains("Error: --servername has the character '*', which no host name has\n"), "\(wildcard.output.stderr)")
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
